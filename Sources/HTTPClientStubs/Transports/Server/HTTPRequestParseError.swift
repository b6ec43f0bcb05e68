import Foundation

/// Why bytes a client sent are not a request this server reads: the status the server answers
/// with before it closes the connection, and one line saying what was wrong.
package struct HTTPRequestParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The status to answer: 400 (malformed), 413 (body too large), 414 (request line too
    /// long), 431 (head too large), 501 (a transfer coding or a method form not implemented) or
    /// 505 (an HTTP version other than 1.x).
    package let status: Int
    /// What was wrong, in one line, without a final full stop ("a header name holds a space").
    package let reason: String

    init(_ status: Int, _ reason: String) {
        self.status = status
        self.reason = reason
    }

    package var description: String { "\(status) \(HTTPResponseWriter.reasonPhrase(for: status)): \(reason)" }

    static func malformed(_ reason: String) -> Self { Self(400, reason) }
}
