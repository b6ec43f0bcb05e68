// Written here, not taken from Foundation: the package has no dependencies, and `JSONDecoder`
// cannot walk a body without building it (see ``JSONParser``).

/// What a ``JSONParser`` builds from the values it reads: a ``JSONValue``, a bencoded fixture
/// name, or nothing (checking only).
protocol JSONBuilder {
    associatedtype Value
    associatedtype Items
    associatedtype Members
    /// Whether the parser must make `String`s of string tokens (checking alone does not).
    static var needsStrings: Bool { get }

    mutating func null() -> Value
    mutating func bool(_ value: Bool) -> Value
    mutating func integer(_ value: Int64) -> Value
    mutating func number(_ value: Double) -> Value
    mutating func string(_ value: String) -> Value
    func makeItems() -> Items
    /// Returns `false` when no later item can change the array's value: the parser then only
    /// checks the rest, building nothing.
    mutating func append(_ value: Value, to items: inout Items) -> Bool
    mutating func array(_ items: Items) -> Value
    func makeMembers() -> Members
    mutating func set(_ name: String, _ value: Value, in members: inout Members)
    mutating func object(_ members: Members) -> Value
}
