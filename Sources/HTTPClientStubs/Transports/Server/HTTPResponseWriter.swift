import Foundation
import HTTPClient

/// The bytes of HTTP/1.1 responses (RFC 9112): status lines, header lines, bodies framed by
/// `Content-Length` or chunked, interim `100 Continue` and the canned answers to bad requests.
///
/// Nothing a stub says can split a response: a header whose name is not a token is left out,
/// and CR, LF, NUL and the other control bytes (tab aside) in a value are each written as a
/// space. The writer frames the body itself: a stub's own `Content-Length`, `Transfer-Encoding`
/// and `Connection` lines are replaced by the ones that describe the bytes actually sent. Every
/// final answer carries a `Date` (RFC 9110 section 6.6.1), unless the stub sets its own.
enum HTTPResponseWriter {
    /// What the `Connection` line of an answer says (RFC 9112 section 9.3).
    enum ConnectionLine: Sendable, Hashable {
        /// No line: an HTTP/1.1 connection stays open unless one side says otherwise.
        case none
        /// `Connection: keep-alive`: an HTTP/1.0 client asked for the connection to stay open,
        /// and it does (a 1.0 client that is not told waits for the close to end the answer).
        case keepAlive
        /// `Connection: close`: the server closes the connection after this answer.
        case close
    }

    /// How the body after a head is delimited.
    enum Framing: Sendable, Hashable {
        /// `Content-Length: n`; for a HEAD request, the length the GET's body has, and no body follows.
        case length(Int)
        /// `Transfer-Encoding: chunked`: ``chunk(_:)`` pieces, then ``lastChunk``.
        case chunked
        /// No body and no framing line: 1xx, 204 and 304 answers.
        case bodiless
        /// No framing line: the body ends where the connection closes (a streamed body for an
        /// HTTP/1.0 client, which knows no chunked coding).
        case untilClose
        /// The stub's own `Content-Length`, `Transfer-Encoding` and `Connection` lines, as given
        /// (right or wrong), and no others: the connection closes after the body.
        case asGiven
    }

    /// The interim answer to `Expect: 100-continue`.
    static let continueResponse = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// The end of a chunked body (a zero-size chunk and no trailers).
    static let lastChunk = Array("0\r\n\r\n".utf8)

    /// A chunk whose size line is not hexadecimal: what ``StubFault/malformedChunk`` writes.
    static let malformedChunk = Array("zz\r\nnot a chunk\r\n".utf8)

    /// A status line and header lines.
    /// - Parameters:
    ///   - status: the status code, written as its three digits (0-999; any other is written as 500).
    ///   - reason: the reason phrase; the standard one (or the code's class) when nil.
    ///   - headers: the stub's header lines, each written as its own line (two `Set-Cookie` stay two).
    ///   - framing: how the body is delimited.
    ///   - connection: the `Connection` line, if any (`close`: the server closes after the body).
    ///   - date: the `Date` line's value, written unless `headers` has a `Date` of its own.
    static func head(
        status: Int, reason: String? = nil, headers: [HTTPHeaders.Field], framing: Framing, connection: ConnectionLine,
        date: String = HTTPDate.now
    ) -> [UInt8] {
        let code = (0...999).contains(status) ? status : 500
        let digits = String(code)
        var text = "HTTP/1.1 " + String(repeating: "0", count: 3 - digits.count) + digits + " "
        text += (reason.map(safeValue) ?? reasonPhrase(for: code)) + "\r\n"
        if !headers.contains(where: { $0.name.caseInsensitiveEquals("Date") }) {
            text += "Date: \(date)\r\n"
        }
        for field in headers where framing == .asGiven || !isFramingName(field.name) {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(HTTPRequestParser.isTokenByte) else { continue }
            text += field.name + ": " + safeValue(field.value) + "\r\n"
        }
        switch framing {
        case .length(let length): text += "Content-Length: \(length)\r\n"
        case .chunked: text += "Transfer-Encoding: chunked\r\n"
        case .bodiless, .untilClose, .asGiven: break
        }
        switch framing == .asGiven ? .none : connection {
        case .none: break
        case .keepAlive: text += "Connection: keep-alive\r\n"
        case .close: text += "Connection: close\r\n"
        }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// A whole response with a body known in advance, framed by `Content-Length`. For HEAD only
    /// the head is written, with the length the GET would have (the stub's own `Content-Length`
    /// when it has one, as a HEAD stub has no body to count); 1xx, 204 and 304 get no body.
    /// - Parameters:
    ///   - status: the status code.
    ///   - headers: the stub's header lines.
    ///   - body: the body.
    ///   - method: the request's method (`HEAD` writes no body).
    ///   - connection: the `Connection` line, if any.
    ///   - date: the `Date` line's value, written unless `headers` has a `Date` of its own.
    static func response(
        status: Int, reason: String? = nil, headers: [HTTPHeaders.Field], body: Data, method: String, connection: ConnectionLine,
        date: String = HTTPDate.now
    ) -> [UInt8] {
        if isBodiless(status) {
            return head(status: status, reason: reason, headers: headers, framing: .bodiless, connection: connection, date: date)
        }
        if method == "HEAD" {
            let declared = headers.last { $0.name.caseInsensitiveEquals("Content-Length") }
                .flatMap { Int($0.value.trimmingCharacters(in: .whitespaces)) }
                .flatMap { $0 >= 0 ? $0 : nil }
            let length = body.isEmpty ? declared ?? 0 : body.count
            return head(status: status, reason: reason, headers: headers, framing: .length(length), connection: connection, date: date)
        }
        return head(status: status, reason: reason, headers: headers, framing: .length(body.count), connection: connection, date: date)
            + body
    }

    /// The same response as the pieces a connection writes: the head, then the body as it is
    /// (not copied) when it is large; a small body goes in the head's piece, one write for both.
    static func responsePieces(
        status: Int, reason: String?, headers: [HTTPHeaders.Field], body: Data, method: String, connection: ConnectionLine
    ) -> [Data] {
        guard body.count > smallBody, method != "HEAD", !isBodiless(status) else {
            return [Data(response(status: status, reason: reason, headers: headers, body: body, method: method, connection: connection))]
        }
        return [Data(head(status: status, reason: reason, headers: headers, framing: .length(body.count), connection: connection)), body]
    }

    /// Bodies up to this size are copied next to their head, so the answer takes one write.
    static let smallBody = 16 * 1024

    /// One piece of a chunked body: its size in hexadecimal, the bytes, CRLF. Empty bytes
    /// give no bytes at all, as a zero-size chunk would end the body.
    /// - Parameter bytes: the piece.
    static func chunk(_ bytes: some Collection<UInt8>) -> [UInt8] {
        guard !bytes.isEmpty else { return [] }
        var chunk = Array((String(bytes.count, radix: 16) + "\r\n").utf8)
        chunk.append(contentsOf: bytes)
        chunk.append(contentsOf: [.cr, .lf])
        return chunk
    }

    /// The answer to a request the parser refused: its status, `Connection: close`, and the
    /// reason as a plain-text body.
    /// - Parameters:
    ///   - error: what the parser found.
    ///   - date: the `Date` line's value.
    static func errorResponse(_ error: HTTPRequestParseError, date: String = HTTPDate.now) -> [UInt8] {
        errorResponse(status: error.status, reason: error.reason, date: date)
    }

    /// A plain-text answer with `Connection: close`, for what the server refuses itself
    /// (408 after a read timeout, 503 past the connection limit).
    /// - Parameters:
    ///   - status: the status code.
    ///   - reason: one line saying why; written as the body.
    ///   - date: the `Date` line's value.
    static func errorResponse(status: Int, reason: String, date: String = HTTPDate.now) -> [UInt8] {
        response(
            status: status, headers: [HTTPHeaders.Field(name: "Content-Type", value: "text/plain; charset=utf-8")],
            body: Data((reason + "\n").utf8), method: "GET", connection: .close, date: date)
    }

    /// Whether a status never has a body (RFC 9110 sections 15.2, 15.3.5 and 15.4.5).
    static func isBodiless(_ status: Int) -> Bool { (100...199).contains(status) || status == 204 || status == 304 }

    /// The reason phrase of a status line: the one IANA registers for the code, or, for a code
    /// of 100-599 without one, its class's name (`Client Error` for 499), as MockWebServer writes
    /// them; empty for a code outside those classes (allowed by RFC 9112 section 4).
    /// - Parameter status: the status code.
    static func reasonPhrase(for status: Int) -> String {
        if let phrase = reasonPhrases[status] { return phrase }
        switch status / 100 {
        case 1: return "Informational"
        case 2: return "Success"
        case 3: return "Redirection"
        case 4: return "Client Error"
        case 5: return "Server Error"
        default: return ""
        }
    }

    private static func isFramingName(_ name: String) -> Bool {
        name.caseInsensitiveEquals("Content-Length") || name.caseInsensitiveEquals("Transfer-Encoding")
            || name.caseInsensitiveEquals("Connection")
    }

    private static func safeValue(_ value: String) -> String {
        guard value.unicodeScalars.contains(where: isUnsafe) else { return value }
        return String(String.UnicodeScalarView(value.unicodeScalars.map { isUnsafe($0) ? " " : $0 }))
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || scalar.value == 0x7F
    }

    /// The IANA HTTP Status Code Registry's phrases (and 418's, from RFC 2324).
    private static let reasonPhrases: [Int: String] = [
        100: "Continue", 101: "Switching Protocols", 102: "Processing", 103: "Early Hints",
        200: "OK", 201: "Created", 202: "Accepted", 203: "Non-Authoritative Information", 204: "No Content",
        205: "Reset Content", 206: "Partial Content", 207: "Multi-Status", 208: "Already Reported", 226: "IM Used",
        300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
        305: "Use Proxy", 307: "Temporary Redirect", 308: "Permanent Redirect",
        400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 406: "Not Acceptable", 407: "Proxy Authentication Required", 408: "Request Timeout",
        409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed", 413: "Content Too Large",
        414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable", 417: "Expectation Failed",
        418: "I'm a teapot", 421: "Misdirected Request", 422: "Unprocessable Content", 423: "Locked",
        424: "Failed Dependency", 425: "Too Early", 426: "Upgrade Required", 428: "Precondition Required",
        429: "Too Many Requests", 431: "Request Header Fields Too Large", 451: "Unavailable For Legal Reasons",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
        504: "Gateway Timeout", 505: "HTTP Version Not Supported", 506: "Variant Also Negotiates",
        507: "Insufficient Storage", 508: "Loop Detected", 510: "Not Extended", 511: "Network Authentication Required",
    ]
}
