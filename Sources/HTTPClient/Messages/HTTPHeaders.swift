import Foundation

/// An ordered list of HTTP header fields with case-insensitive lookup.
///
/// Header names are case-insensitive (RFC 9110 §5.1) and Foundation on Linux re-cases them
/// (`etag` arrives as `Etag`), so never compare names with `==`; use the subscript:
///
/// ```swift
/// response.headers["content-type"]  // "application/json", however the server spelled it
/// ```
///
/// Repeated fields are kept in order; the subscript joins them with `, ` as RFC 9110 allows.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral,
    CustomStringConvertible
{
    /// One header field as it was set or received.
    public struct Field: Sendable, Hashable {
        /// The field name, in the case it was set or received in.
        public var name: String
        /// The field value.
        public var value: String

        /// A field with this name and value.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    private var fields: [Field]

    /// Creates headers from fields, keeping their order and repetitions.
    init(_ fields: [Field]) {
        self.fields = fields
    }

    /// Creates headers from a dictionary. Keys are sorted so the order is deterministic.
    public init(_ dictionary: [String: String]) {
        fields = dictionary.sorted { $0.key < $1.key }.map { Field(name: $0.key, value: $0.value) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The value of the field named `name` (any case); repeated fields joined by `", "`.
    /// Setting removes every field with that name and adds one, as spelled, at the end (as
    /// OkHttp's `set` and a server writing its headers do); setting `nil` removes them.
    public subscript(name: String) -> String? {
        get {
            var found: String?
            for field in fields where field.name.caseInsensitiveEquals(name) {
                found = found.map { "\($0), \(field.value)" } ?? field.value
            }
            return found
        }
        set {
            fields.removeAll { $0.name.caseInsensitiveEquals(name) }
            if let newValue { fields.append(Field(name: name, value: newValue)) }
        }
    }

    /// Every value of the field named `name` (any case), in order.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    /// Adds a field without touching existing fields of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Sets every field of `other`, replacing fields of the same name; a name `other` repeats
    /// stays repeated, as the client's own headers do, so both are joined alike when sent.
    mutating func merge(_ other: HTTPHeaders) {
        fields.removeAll { field in other.fields.contains { $0.name.caseInsensitiveEquals(field.name) } }
        fields.append(contentsOf: other.fields)
    }

    /// The distinct field names, in first-seen order, as spelled first.
    var names: [String] {
        var seen: [String] = []
        for field in fields where !seen.contains(where: { $0.caseInsensitiveEquals(field.name) }) {
            seen.append(field.name)
        }
        return seen
    }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }
    /// How many fields there are, repeated ones counted each time.
    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    /// Equal when they hold the same fields in the same order, comparing names case-insensitively.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy {
                $0.name.caseInsensitiveEquals($1.name) && $0.value == $1.value
            }
    }

    public func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name.lowercased())
            hasher.combine(field.value)
        }
    }
}

extension StringProtocol {
    /// ASCII case-insensitive equality, which is what HTTP field names need. Cheaper than
    /// `lowercased()` on both sides because it allocates nothing.
    /// `package`: matchers and cassettes (HTTPClientStubs) compare header names this way.
    /// `@inlinable`: called from the other modules, a generic function runs unspecialised there,
    /// with a metadata lookup per character (it was most of a request matched by scheme and host).
    @inlinable
    package func caseInsensitiveEquals(_ other: some StringProtocol) -> Bool {
        let lhs = utf8
        let rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        // Native strings compare over their bytes directly: iterating two UTF-8 views in step
        // cost most of a rejected header condition.
        let contiguous = lhs.withContiguousStorageIfAvailable { a in
            rhs.withContiguousStorageIfAvailable { b in asciiCaseInsensitiveEquals(a, b) }
        }
        if let contiguous, let result = contiguous { return result }
        return asciiCaseInsensitiveEquals(lhs, rhs)
    }

    /// Whether this equals `lowercased` (text already folded by ``asciiLowercased``, such as a
    /// stub's host), ASCII case-insensitively: only this side is folded, byte by byte.
    /// `package`: the scheme and host conditions (HTTPClientStubs) fold their text once, when
    /// the stub is made, and compare each request this way.
    @inlinable
    package func caseInsensitiveEquals(asciiLowercased lowercased: String) -> Bool {
        let lhs = utf8
        let rhs = lowercased.utf8
        guard lhs.count == rhs.count else { return false }
        let contiguous = lhs.withContiguousStorageIfAvailable { a in
            rhs.withContiguousStorageIfAvailable { b in asciiCaseInsensitiveEquals(a, asciiLowercased: b) }
        }
        if let contiguous, let result = contiguous { return result }
        return asciiCaseInsensitiveEquals(lhs, rhs)
    }

    /// Lower-cased in ASCII only, the folding ``caseInsensitiveEquals(_:)`` compares by: a key
    /// for looking field names up (`lowercased()` would also fold non-ASCII letters).
    /// `package`: matchers (HTTPClientStubs) fold names this way. `@inlinable`, as the
    /// comparisons above: unspecialised in the other modules it cost about 5k instructions for
    /// one short header name, every request (each request's names are folded when it is captured).
    @inlinable
    package var asciiLowercased: String {
        let folded = utf8.withContiguousStorageIfAvailable { bytes -> String? in
            guard bytes.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return nil }
            // Written into the string's own storage: no array in between.
            return String(unsafeUninitializedCapacity: bytes.count) { buffer in
                for (index, byte) in bytes.enumerated() { buffer[index] = asciiLowercase(byte) }
                return bytes.count
            }
        }
        if let folded { return folded ?? String(self) }
        guard utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return String(self) }
        return String(decoding: utf8.map(asciiLowercase), as: UTF8.self)
    }
}

/// `byte` with an ASCII capital letter lower-cased; any other byte unchanged.
@inlinable
func asciiLowercase(_ byte: UInt8) -> UInt8 {
    byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
}

/// Whether `bytes` equal `lowercased` (UTF-8 already folded as `asciiLowercased` folds), the
/// ASCII capitals of `bytes` lower-cased; every other byte must be equal.
/// `package`: the scheme and host conditions (HTTPClientStubs) compare a request's URL in place.
@inlinable
package func asciiCaseInsensitiveEquals(
    _ bytes: UnsafeBufferPointer<UInt8>, asciiLowercased lowercased: UnsafeBufferPointer<UInt8>
) -> Bool {
    guard bytes.count == lowercased.count else { return false }
    for index in 0..<bytes.count where bytes[index] != lowercased[index] {
        guard asciiLowercase(bytes[index]) == lowercased[index] else { return false }
    }
    return true
}

/// Whether two UTF-8 sequences are equal with ASCII letters compared case-insensitively.
@inlinable
func asciiCaseInsensitiveEquals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
    for (a, b) in zip(lhs, rhs) where a != b {
        guard asciiLowercase(a) == asciiLowercase(b) else { return false }
    }
    return true
}

extension Sequence<HTTPHeaders.Field> {
    /// The fields as `URLRequest` keeps them, one value a name: the values of a name (in any
    /// case) joined in order, each after `separator(name folded to lower case)`, under the
    /// name's first spelling.
    /// `package`: the stub server (HTTPClientStubs) joins a request's header lines this way.
    package func joinedByName(separator: (String) -> String) -> [String: String] {
        var fields: [String: String] = [:]
        var spellings: [String: String] = [:]
        for field in self {
            let folded = field.name.asciiLowercased
            if let name = spellings[folded] {
                fields[name, default: ""] += separator(folded) + field.value
            } else {
                spellings[folded] = field.name
                fields[field.name] = field.value
            }
        }
        return fields
    }
}

extension String {
    /// Whether this is an RFC 9110 token (`tchar`s only, not empty): what methods and header
    /// names must be.
    /// `package`: `.http` files, cassettes (HTTPClientStubs) and httpc check header names this way.
    package var isHTTPToken: Bool {
        !isEmpty && utf8.allSatisfy(\.isHTTPTokenByte)
    }
}

extension UInt8 {
    /// Whether this byte may be part of an RFC 9110 token (a `tchar`).
    /// `package`: httpc shows a rejected method up to its first byte that is not one.
    package var isHTTPTokenByte: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(self)
        }
    }
}
