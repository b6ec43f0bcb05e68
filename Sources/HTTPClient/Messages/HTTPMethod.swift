/// An HTTP request method such as `GET` or `POST`.
///
/// Common methods are static members (`.get`, `.post`, ...); any other token can be written
/// as a string literal: `let method: HTTPMethod = "PROPFIND"`.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The method token as sent on the wire, upper-cased.
    public let rawValue: String

    /// Creates a method from its token; its ASCII letters are upper-cased, as methods are
    /// case-sensitive on the wire and every registered method is upper case. Nothing else is
    /// changed: Unicode's upper-casing would turn `poſt` into a valid `POST`, and a string that
    /// is not a token is refused when a request is sent (``HTTPClientError/invalidMethod(_:reason:)``).
    public init(rawValue: String) {
        let isLowercase = { (byte: UInt8) in byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") }
        // Most tokens arrive upper-cased already: no new string for them.
        guard rawValue.utf8.contains(where: isLowercase) else {
            self.rawValue = rawValue
            return
        }
        self.rawValue = String(decoding: rawValue.utf8.map { isLowercase($0) ? $0 - 0x20 : $0 }, as: UTF8.self)
    }

    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    public var description: String { rawValue }

    /// The `GET` method.
    public static let get: HTTPMethod = "GET"
    /// The `POST` method.
    public static let post: HTTPMethod = "POST"
    /// The `PUT` method.
    public static let put: HTTPMethod = "PUT"
    /// The `PATCH` method.
    public static let patch: HTTPMethod = "PATCH"
    /// The `DELETE` method.
    public static let delete: HTTPMethod = "DELETE"
    /// The `HEAD` method.
    public static let head: HTTPMethod = "HEAD"
    /// The `OPTIONS` method.
    public static let options: HTTPMethod = "OPTIONS"

    /// Whether sending the request twice has the same effect as sending it once
    /// ([RFC 9110 §9.2.2](https://www.rfc-editor.org/rfc/rfc9110#section-9.2.2)).
    public var isIdempotent: Bool {
        switch rawValue {
        case "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE": true
        default: false
        }
    }
}
