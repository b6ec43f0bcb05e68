import Foundation
import HTTPClient

/// The host and port a client addressed: what a ``StubServer`` puts in the URLs it records and
/// writes, in place of the address it listens on. A server bound to `0.0.0.0` is reached at
/// `192.168.1.20:8080` or `localhost:8080`, never at `0.0.0.0`, which a phone would resolve to itself.
///
/// Only a plain authority is taken: a host name of letters, digits, `-`, `.` and `_`, an IPv4
/// address or a bracketed IPv6 address, and an optional port of at most five digits. Anything
/// else the request line or `Host` allows (percent-encoding, `!$&'()*+,;=`, a user) is not put
/// into a URL: a request naming such a host is recorded at the server's own address, and a
/// `Location` of the server's is made relative.
struct RequestAuthority: Sendable, Hashable, CustomStringConvertible {
    /// `host` or `host:port`, as a URL writes it (`[::1]:8080`).
    let description: String

    /// The authority `head` addresses: an absolute-form target's (RFC 9112 section 3.2.2), else
    /// the `Host` line's; nil when there is none, or none plain enough to write into a URL.
    init?(of head: HTTPRequestHead) {
        if head.target.hasPrefix("/") || head.target == "*" {
            guard let host = head.values(of: "Host").first else { return nil }
            self.init(host)
        } else {
            guard let separator = head.target.range(of: "://") else { return nil }
            let rest = head.target[separator.upperBound...]
            self.init(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" })
        }
    }

    /// `text` as an authority, when it is a plain host with an optional port.
    init?(_ text: some StringProtocol) {
        let bytes = Array(text.utf8)
        var hostEnd = 0
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")), close > 1,
                bytes[1..<close].allSatisfy({ HTTPRequestParser.hexValue($0) != nil || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else { return nil }
            hostEnd = close + 1
        } else {
            hostEnd = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.count
            guard hostEnd > 0, hostEnd <= 253, bytes[..<hostEnd].allSatisfy(Self.isNameByte) else { return nil }
        }
        let port = bytes[hostEnd...]
        if let colon = port.first {
            let digits = port.dropFirst()
            guard colon == UInt8(ascii: ":"), digits.count <= 5, digits.allSatisfy(HTTPRequestParser.isDigit),
                digits.isEmpty || Int(String(decoding: digits, as: UTF8.self)).map({ $0 <= 65535 }) == true
            else { return nil }
            // `host:` is `host` (RFC 3986 section 3.2.3: an empty port is the scheme's default).
            description = String(decoding: digits.isEmpty ? bytes[..<hostEnd] : bytes[...], as: UTF8.self)
        } else {
            description = String(decoding: bytes, as: UTF8.self)
        }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
        }
    }

    // MARK: URLs in answers

    /// The names of the header lines whose value is a URL a client goes to or stores.
    private static let urlFields = ["location", "content-location"]

    /// `fields` with every `Location` and `Content-Location` that points at the server's own
    /// address (`server`, its base URL: `http://0.0.0.0:8080/new`) pointing at `authority`
    /// instead (`http://192.168.1.20:8080/new`), or, with no authority to use, made relative
    /// (`/new`), which a client resolves against the URL it asked for. Other URLs are left as they are.
    /// - Parameters:
    ///   - fields: the answer's header lines.
    ///   - authority: what the request addressed, when it is usable.
    ///   - server: the server's base URL (scheme, host and port, no path).
    static func answerFields(
        _ fields: [HTTPHeaders.Field], addressedTo authority: RequestAuthority?, servedAt server: URL
    ) -> [HTTPHeaders.Field] {
        let origin = server.absoluteString
        return fields.map { field in
            guard urlFields.contains(field.name.lowercased()), let rest = remainder(of: field.value, after: origin) else { return field }
            let value = authority.map { "\(server.scheme ?? "http")://\($0)\(rest)" } ?? (rest.hasPrefix("/") ? String(rest) : "/" + rest)
            return HTTPHeaders.Field(name: field.name, value: value)
        }
    }

    /// What follows `origin` in `url` (the path, query and fragment), when `url` starts with
    /// `origin` (scheme and host compared case-insensitively) and the authority ends there.
    private static func remainder(of url: String, after origin: String) -> Substring? {
        let value = url.trimmingCharacters(in: .whitespaces)
        guard value.utf8.count >= origin.utf8.count,
            value.utf8.prefix(origin.utf8.count).elementsEqual(origin.utf8, by: { lowercased($0) == lowercased($1) })
        else { return nil }
        let rest = value.dropFirst(origin.count)
        guard rest.isEmpty || ["/", "?", "#"].contains(rest.first) else { return nil }
        return Substring(rest)
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 0x20 : byte
    }
}
