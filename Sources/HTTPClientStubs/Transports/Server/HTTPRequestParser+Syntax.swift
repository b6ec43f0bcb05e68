import Foundation
import HTTPClient

// The grammar of RFC 9112 and RFC 9110 section 5, one rule per function: what the parser's
// state machine asks of a complete line.
extension HTTPRequestParser {
    /// How a request's body is delimited (RFC 9112 section 6.3).
    enum Framing: Equatable {
        case none
        case length(Int)
        case chunked
    }

    static func parseRequestLine(
        _ line: ArraySlice<UInt8>
    ) throws(HTTPRequestParseError) -> (method: String, target: String, version: HTTPRequestHead.Version) {
        guard let firstSpace = line.firstIndex(of: .space), let lastSpace = line.lastIndex(of: .space), firstSpace < lastSpace
        else { throw .malformed("the request line is not `METHOD target HTTP/1.1`: \(printable(line))") }
        let method = line[..<firstSpace]
        let target = line[(firstSpace + 1)..<lastSpace]
        let version = line[(lastSpace + 1)...]
        guard !method.isEmpty, method.allSatisfy(isTokenByte) else {
            throw .malformed("the method is not a token: \(printable(method))")
        }
        guard !target.isEmpty, target.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw .malformed(
                "the request line has more than three parts or the target holds a space or a byte outside ASCII: \(printable(line))")
        }
        let parsedVersion = try parseVersion(version)
        if target.contains(UInt8(ascii: "#")) {
            throw .malformed("the target holds a fragment (#...), which is never sent: \(printable(target))")
        }
        let methodName = String(decoding: method, as: UTF8.self)
        let targetText = String(decoding: target, as: UTF8.self)
        if targetText == "*" {
            guard methodName == "OPTIONS" else { throw .malformed("the target * is for OPTIONS only, not \(methodName)") }
        } else if methodName == "CONNECT" {
            throw HTTPRequestParseError(501, "CONNECT (a tunnel through a proxy) is not served by a stub server")
        } else if !targetText.hasPrefix("/") {
            let scheme = targetText.prefix { $0 != ":" }.lowercased()
            guard scheme == "http" || scheme == "https", targetText.dropFirst(scheme.count).hasPrefix("://"),
                URL(string: targetText)?.host != nil
            else { throw .malformed("the target is neither /path, an http(s) URL nor *: \(printable(targetText))") }
        }
        return (methodName, targetText, parsedVersion)
    }

    static func parseVersion(_ version: ArraySlice<UInt8>) throws(HTTPRequestParseError) -> HTTPRequestHead.Version {
        let bytes = Array(version)
        guard bytes.count == 8, bytes[0..<5].elementsEqual("HTTP/".utf8), isDigit(bytes[5]), bytes[6] == UInt8(ascii: "."),
            isDigit(bytes[7])
        else { throw .malformed("the request line does not end in an HTTP version: \(printable(version))") }
        switch (bytes[5], bytes[7]) {
        case (UInt8(ascii: "1"), UInt8(ascii: "0")): return .http10
        // RFC 9110 section 2.5: a later minor version of a major version the server implements
        // is read as the latest minor version it implements (HTTP/1.2 as HTTP/1.1).
        case (UInt8(ascii: "1"), _): return .http11
        default: throw HTTPRequestParseError(505, "\(printable(version)) is not served; HTTP/1.0 and HTTP/1.1 are")
        }
    }

    static func parseField(_ line: ArraySlice<UInt8>) throws(HTTPRequestParseError) -> HTTPHeaders.Field {
        if let first = line.first, first == .space || first == .tab {
            throw .malformed("a header line starts with whitespace (obsolete line folding is not accepted)")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            throw .malformed("a header line has no colon: \(printable(line))")
        }
        let name = line[..<colon]
        guard !name.isEmpty else { throw .malformed("a header line has an empty name") }
        if let last = name.last, last == .space || last == .tab {
            throw .malformed("whitespace between a header name and its colon: \(printable(name))")
        }
        guard name.allSatisfy(isTokenByte) else { throw .malformed("a header name is not a token: \(printable(name))") }
        let value = line[(colon + 1)...].drop { $0 == .space || $0 == .tab }
        let trimmed = value[..<(value.lastIndex { $0 != .space && $0 != .tab }.map { $0 + 1 } ?? value.startIndex)]
        if trimmed.contains(where: { ($0 < 0x20 && $0 != .tab) || $0 == 0x7F }) {
            throw .malformed("the value of \(String(decoding: name, as: UTF8.self)) holds a control byte")
        }
        return HTTPHeaders.Field(name: String(decoding: name, as: UTF8.self), value: text(trimmed))
    }

    /// How the body is delimited, from `Transfer-Encoding` and `Content-Length` (RFC 9112 section 6),
    /// and the Host rule of RFC 9112 section 3.2.
    static func framing(of head: HTTPRequestHead, limits: HTTPServerLimits) throws(HTTPRequestParseError) -> Framing {
        let hosts = head.values(of: "Host")
        if hosts.count > 1 { throw .malformed("more than one Host line") }
        if hosts.isEmpty, head.version == .http11 { throw .malformed("an HTTP/1.1 request without a Host line") }
        if let host = hosts.first, !isHostAndPort(host) {
            throw .malformed("the Host line is not a host and an optional port: \(printable(ArraySlice(host.utf8)))")
        }
        let lengths = head.values(of: "Content-Length")
        let codings = head.listElements(of: "Transfer-Encoding")
        if !head.values(of: "Transfer-Encoding").isEmpty {
            // RFC 9112 section 6.1: HTTP/1.0 has no transfer codings, so a 1.0 message with one
            // was likely passed on by something that did not decode it: its framing is faulty.
            guard head.version == .http11 else {
                throw .malformed("Transfer-Encoding in an HTTP/1.0 request (transfer codings are HTTP/1.1's)")
            }
            guard lengths.isEmpty else {
                throw .malformed("both Content-Length and Transfer-Encoding (the two could disagree about where the body ends)")
            }
            if let other = codings.first(where: { $0 != "chunked" }) {
                throw HTTPRequestParseError(501, "Transfer-Encoding \(printable(other)) is not implemented; chunked is")
            }
            guard codings.count == 1 else {
                throw .malformed("Transfer-Encoding is \(codings.isEmpty ? "empty" : "chunked more than once")")
            }
            return .chunked
        }
        var length: Int?
        for element in lengths.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }) {
            let digits = element.trimmingCharacters(in: .whitespaces)
            guard !digits.isEmpty, digits.utf8.allSatisfy(isDigit) else {
                throw .malformed("Content-Length is not a decimal number: \(printable(element))")
            }
            // A number too long for Int is as much past the limit as one that fits.
            guard let value = Int(digits), value <= limits.maximumBodyBytes else {
                throw HTTPRequestParseError(413, "Content-Length \(digits) passes the body limit of \(limits.maximumBodyBytes) bytes")
            }
            if let length, length != value { throw .malformed("Content-Length lines that differ: \(length) and \(value)") }
            length = value
        }
        return length.map(Framing.length) ?? .none
    }

    /// Whether `host` is `uri-host [ ":" port ]` (RFC 9112 section 3.2, RFC 3986 section 3.2.2):
    /// a bracketed IPv6 address, or a registered name or IPv4 address (unreserved bytes,
    /// percent-encoded bytes and sub-delimiters), then optionally a colon and digits. Empty is
    /// refused too: a client of a server always knows the host it connected to.
    static func isHostAndPort(_ host: String) -> Bool {
        let bytes = Array(host.utf8)
        let hostEnd: Int
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")), close > 1,
                bytes[1..<close].allSatisfy({ hexValue($0) != nil || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else { return false }
            hostEnd = close + 1
        } else {
            hostEnd = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.count
            guard hostEnd > 0 else { return false }
            var index = 0
            while index < hostEnd {
                if bytes[index] == UInt8(ascii: "%") {
                    guard index + 2 < hostEnd, hexValue(bytes[index + 1]) != nil, hexValue(bytes[index + 2]) != nil else { return false }
                    index += 3
                    continue
                }
                guard bytes[index].isRegisteredNameByte else { return false }
                index += 1
            }
        }
        let port = bytes[hostEnd...]
        return port.isEmpty || (port.first == UInt8(ascii: ":") && port.dropFirst().allSatisfy(isDigit))
    }

    /// Whether `bytes`, what follows a chunk's size on its line, is a list of chunk extensions
    /// (RFC 9112 section 7.1.1): each `;name` or `;name=value`, the value a token or a quoted
    /// string, whitespace allowed before the `;` and around the `=`. Nothing else: whitespace
    /// with no extension after it, a bare `;` or a name that is not a token are where readers
    /// disagree, and request smuggling lives in such disagreements.
    static func isChunkExtensionList(_ bytes: ArraySlice<UInt8>) -> Bool {
        var index = bytes.startIndex
        func skipWhitespace() {
            while index < bytes.endIndex, bytes[index] == .space || bytes[index] == .tab { index += 1 }
        }
        func token() -> Bool {
            let start = index
            while index < bytes.endIndex, isTokenByte(bytes[index]) { index += 1 }
            return index > start
        }
        func quotedString() -> Bool {
            guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "\"") else { return false }
            index += 1
            while index < bytes.endIndex {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return true
                }
                if byte == UInt8(ascii: "\\") {
                    index += 1
                    guard index < bytes.endIndex, bytes[index].isQuotedTextByte || bytes[index] == UInt8(ascii: "\"") else { return false }
                } else if !byte.isQuotedTextByte {
                    return false
                }
                index += 1
            }
            return false
        }
        while index < bytes.endIndex {
            skipWhitespace()
            guard index < bytes.endIndex, bytes[index] == UInt8(ascii: ";") else { return false }
            index += 1
            skipWhitespace()
            guard token() else { return false }
            let afterName = index
            skipWhitespace()
            if index < bytes.endIndex, bytes[index] == UInt8(ascii: "=") {
                index += 1
                skipWhitespace()
                guard token() || quotedString() else { return false }
            } else {
                index = afterName
            }
        }
        return true
    }

    /// A header value as text: UTF-8 when it is valid UTF-8, otherwise ISO 8859-1, byte for byte (nothing is lost).
    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        if UTF8Validation.isValid(bytes) { return String(decoding: bytes, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: bytes.map { Unicode.Scalar($0) })
        return String(scalars)
    }

    /// Bytes as they can be quoted in an error: printable ASCII kept, others as `\xNN`, at most 100 of them.
    static func printable(_ bytes: ArraySlice<UInt8>) -> String {
        var text = ""
        for byte in bytes.prefix(100) {
            text += (0x20...0x7E).contains(byte) ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16, uppercase: true)
        }
        return bytes.count > 100 ? text + "..." : text
    }

    /// Text from the request quoted in an error, by its UTF-8 bytes: a value decoded from the
    /// wire may hold a line break other than CR and LF (U+0085, U+2028), and a reason is one line.
    static func printable(_ text: some StringProtocol) -> String {
        printable(ArraySlice(text.utf8))
    }

    static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }

    static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// `tchar` of RFC 9110 section 5.6.2: what a method or a header name is made of.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

extension UInt8 {
    /// A byte of a registered name or an IPv4 address (RFC 3986 section 3.2.2) other than a
    /// percent-encoding: unreserved bytes and sub-delimiters.
    fileprivate var isRegisteredNameByte: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "-._~!$&'()*+,;=".utf8.contains(self)
        }
    }

    /// `qdtext` of RFC 9110 section 5.6.4, and what a quoted pair may escape besides `"`: tab,
    /// space, visible ASCII but `"` and `\`, and bytes past ASCII.
    fileprivate var isQuotedTextByte: Bool {
        self == .tab || self == .space || self == 0x21 || (0x23...0x5B).contains(self) || (0x5D...0x7E).contains(self) || self >= 0x80
    }

    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
}
