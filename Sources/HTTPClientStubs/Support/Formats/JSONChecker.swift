// Written here, not taken from Foundation: the has no dependencies, and `JSONDecoder`
// cannot walk a body without building it (see ``JSONParser``).

/// Builds nothing: the parser only checks the text.
struct JSONChecker: JSONBuilder {
    static var needsStrings: Bool { false }
    func null() {}
    func bool(_ value: Bool) {}
    func integer(_ value: Int64) {}
    func number(_ value: Double) {}
    func string(_ value: String) {}
    func makeItems() {}
    func append(_ value: Void, to items: inout Void) -> Bool { true }
    func array(_ items: Void) {}
    func makeMembers() {}
    func set(_ name: String, _ value: Void, in members: inout Void) {}
    func object(_ members: Void) {}
}
