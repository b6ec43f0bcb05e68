import Foundation
import HTTPClient

/// A request's line and header fields, as a client sent them: what a server knows before the body.
package struct HTTPRequestHead: Sendable, Hashable {
    /// The HTTP versions a ``StubServer`` reads; others are answered 505.
    package enum Version: Sendable, Hashable, CustomStringConvertible {
        /// HTTP/1.0: the connection closes after the answer unless the client asks to keep it.
        case http10
        /// HTTP/1.1: the connection stays open unless the client asks to close it.
        case http11

        package var description: String { self == .http10 ? "HTTP/1.0" : "HTTP/1.1" }
    }

    /// The method, any token, in the case it was sent (`GET`, `PURGE`).
    package var method: String
    /// The request target as sent: `/path?query`, an absolute URL, or `*` (OPTIONS only).
    package var target: String
    /// The protocol version of the request line.
    package var version: Version
    /// Every header line in the order sent, repetitions kept; names in the case they were sent.
    /// A value is read as UTF-8 when it is valid UTF-8, otherwise byte for byte as ISO 8859-1.
    package var headers: [HTTPHeaders.Field]

    /// About the bytes the head took: the target and every header name and value, with the
    /// separators and line ends (not the method and version).
    var size: Int {
        headers.reduce(target.utf8.count) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
    }

    /// The values of every line named `name` (case-insensitively), in order.
    /// - Parameter name: the header name.
    package func values(of name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    /// The comma-separated elements of every line named `name`, trimmed and lowercased, empty ones left out.
    func listElements(of name: String) -> [String] {
        var elements: [String] = []
        for field in headers where field.name.caseInsensitiveEquals(name) {
            for element in field.value.utf8.split(separator: UInt8(ascii: ",")) {
                let trimmed = element.drop { $0 == .space || $0 == .tab }.reversed().drop { $0 == .space || $0 == .tab }.reversed()
                if !trimmed.isEmpty { elements.append(String(decoding: trimmed, as: UTF8.self).asciiLowercased) }
            }
        }
        return elements
    }

    /// Whether the connection stays open after the answer (RFC 9112 section 9.3): HTTP/1.1
    /// unless `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`.
    package var keepsAlive: Bool {
        if hasListElement("close", in: "Connection") { return false }
        return version == .http11 || hasListElement("keep-alive", in: "Connection")
    }

    /// Whether a line named `name` lists `element` (ASCII lower case), compared in place: what
    /// ``keepsAlive`` asks of every request, without making a string per element.
    private func hasListElement(_ element: StaticString, in name: String) -> Bool {
        let wanted = UnsafeBufferPointer(start: element.utf8Start, count: element.utf8CodeUnitCount)
        for field in headers where field.name.caseInsensitiveEquals(name) {
            var value = field.value
            let found = value.withUTF8 { bytes in
                bytes.split(separator: UInt8(ascii: ",")).contains { part in
                    var trimmed = part[...]
                    while let first = trimmed.first, first == .space || first == .tab { trimmed.removeFirst() }
                    while let last = trimmed.last, last == .space || last == .tab { trimmed.removeLast() }
                    return trimmed.withContiguousStorageIfAvailable { asciiCaseInsensitiveEquals($0, asciiLowercased: wanted) } ?? false
                }
            }
            if found { return true }
        }
        return false
    }

    /// The `Connection` line of the answer: `close` when the connection closes after it, and
    /// `keep-alive` when an HTTP/1.0 client asked for the connection to stay open (without it,
    /// such a client takes the answer as ending at the close, and waits for it).
    var answerConnectionLine: HTTPResponseWriter.ConnectionLine {
        guard keepsAlive else { return .close }
        return version == .http10 ? .keepAlive : .none
    }

    /// Whether the client waits for `100 Continue` before it sends the body (`Expect: 100-continue`
    /// on HTTP/1.1; RFC 9110 section 10.1.1 tells HTTP/1.0 servers to ignore it).
    package var expectsContinue: Bool {
        version == .http11 && listElements(of: "Expect").contains("100-continue")
    }
}
