import Foundation
import HTTPClient

extension JSONParser where Builder == JSONValueBuilder {
    /// Whether `data` is JSON that contains `expected` (``JSONValue/contains(_:)``), decided in
    /// one walk over the bytes that builds only what `expected` names: the members it asks for,
    /// never the rest of the body, which is only checked. The same answer as parsing the body
    /// into a `JSONValue` and asking it, at the speed of the checking parser.
    static func body(_ data: Data, contains expected: JSONValue) -> Bool {
        data.withUnsafeBytes { raw in
            var parser = JSONParser(raw.bindMemory(to: UInt8.self), builder: JSONValueBuilder())
            do throws(Failure) {
                parser.skipSpace()
                let contains = try parser.contains(expected)
                parser.skipSpace()
                // Text after the value: not JSON, so it contains nothing.
                return contains && parser.index == parser.bytes.count
            } catch {
                return false
            }
        }
    }

    /// Reads the value at the current position and says whether it contains `expected`.
    private mutating func contains(_ expected: JSONValue) throws(Failure) -> Bool {
        guard index < bytes.count else { throw failure("a value was expected") }
        let opening = bytes[index]
        switch expected {
        case .object(let wanted) where opening == UInt8(ascii: "{"):
            return try object(containing: wanted)
        case .array(let wanted) where opening == UInt8(ascii: "["):
            return try array(containing: wanted)
        case .object, .array:
            try check()  // another kind of value: it contains nothing expected of that shape
            return false
        default:
            // A scalar is equal or not; an object or array never equals one.
            guard opening != UInt8(ascii: "{"), opening != UInt8(ascii: "[") else {
                try check()
                return false
            }
            return try value().contains(expected)
        }
    }

    /// An object contains `wanted` when each wanted member is present and contains its value.
    /// A repeated name counts by its last value, as the tree keeps it.
    private mutating func object(containing wanted: [String: JSONValue]) throws(Failure) -> Bool {
        var found: [String: Bool] = [:]
        try readObject { parser, name throws(Failure) in
            if let value = JSONValue.member(name, of: wanted) {
                found[name] = try parser.contains(value)
            } else {
                try parser.check()
            }
        }
        return wanted.keys.allSatisfy { found[$0] == true }
    }

    /// An array contains `wanted` when it has as many items, each containing its counterpart.
    private mutating func array(containing wanted: [JSONValue]) throws(Failure) -> Bool {
        var count = 0
        var all = true
        try readArray { parser, position throws(Failure) in
            if position < wanted.count {
                let contains = try parser.contains(wanted[position])
                all = all && contains
            } else {
                try parser.check()
            }
            count = position + 1
        }
        return all && count == wanted.count
    }
}
