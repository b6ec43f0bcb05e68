import Foundation
import HTTPClient

/// A parsed JSON document, for comparing bodies regardless of key order and formatting.
public enum JSONValue: Sendable, Hashable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// Integers that fit in 64 bits stay exact.
    case integer(Int64)
    /// A number with a fraction or an exponent, or too large for 64 bits.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; a repeated name keeps its last value.
    case object([String: JSONValue])

    /// Parses JSON bytes (any top-level value, including fragments such as `"text"` or `3`).
    ///
    /// - Throws: An error naming the byte offset and what was wrong, for text that is not JSON.
    public init(parsing data: Data) throws {
        self = try JSONParser.parse(data, with: JSONValueBuilder())
    }

    /// Converts an `Encodable` value by encoding it with `encoder` and parsing the result.
    package init(encoding value: some Encodable, encoder: JSONEncoder = JSONEncoder()) throws {
        try self.init(parsing: encoder.encode(value))
    }

    /// Whether every member of `expected` is in `self`: objects recursively by key (extra keys
    /// in `self` are fine), arrays element by element with the same length, scalars equal.
    public func contains(_ expected: JSONValue) -> Bool {
        switch (self, expected) {
        case (.object(let actual), .object(let wanted)):
            return wanted.allSatisfy { key, value in Self.member(key, of: actual).map { $0.contains(value) } ?? false }
        case (.array(let actual), .array(let wanted)):
            return actual.count == wanted.count && zip(actual, wanted).allSatisfy { $0.contains($1) }
        default:
            return self == expected
        }
    }

    /// The member `name` of `members`. Most objects have a few members: comparing the name
    /// with each costs less than hashing it (a JSON condition asks once per candidate stub).
    static func member(_ name: String, of members: [String: JSONValue]) -> JSONValue? {
        guard members.count <= 8 else { return members[name] }
        let length = name.utf8.count
        for (key, value) in members where key.utf8.count == length && key == name { return value }
        return nil
    }

    /// Numbers compare by value: `1` equals `1.0`.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.integer(let a), .number(let b)), (.number(let b), .integer(let a)): Double(a) == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .integer(let value): hasher.combine(Double(value))
        case .number(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .array(let value): hasher.combine(value)
        case .object(let value): hasher.combine(value)
        }
    }

    /// Compact JSON with sorted keys.
    public var description: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .integer(let value): return String(value)
        case .number(let value): return value.isFinite ? "\(value)" : "null"
        case .string(let value): return Self.quote(value)
        case .array(let values): return "[" + values.map(\.description).joined(separator: ",") + "]"
        case .object(let members):
            return "{"
                + members.sorted { $0.key < $1.key }
                .map { "\(Self.quote($0.key)):\($0.value.description)" }.joined(separator: ",") + "}"
        }
    }

    private static func quote(_ string: String) -> String {
        let data = (try? JSONEncoder().encode(string)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
