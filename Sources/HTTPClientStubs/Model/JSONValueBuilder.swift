import HTTPClient

/// Builds a ``JSONValue``.
struct JSONValueBuilder: JSONBuilder {
    static var needsStrings: Bool { true }
    func null() -> JSONValue { .null }
    func bool(_ value: Bool) -> JSONValue { .bool(value) }
    func integer(_ value: Int64) -> JSONValue { .integer(value) }
    func number(_ value: Double) -> JSONValue { .number(value) }
    func string(_ value: String) -> JSONValue { .string(value) }
    func makeItems() -> [JSONValue] { [] }
    func append(_ value: JSONValue, to items: inout [JSONValue]) -> Bool {
        items.append(value)
        return true
    }
    func array(_ items: [JSONValue]) -> JSONValue { .array(items) }
    func makeMembers() -> [String: JSONValue] { [:] }
    /// A repeated name keeps its last value, as `JSONDecoder` and `JSONSerialization` do.
    func set(_ name: String, _ value: JSONValue, in members: inout [String: JSONValue]) { members[name] = value }
    func object(_ members: [String: JSONValue]) -> JSONValue { .object(members) }
}
