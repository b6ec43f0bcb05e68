import Foundation
import HTTPClient

extension StubServer {
    /// One request a ``StubServer`` answered, for its ``Configuration/log``:
    /// `GET /users/1 -> 200 (GET /users/{id})`. Credentials are redacted as in every report.
    public struct LogEntry: Sendable, CustomStringConvertible {
        /// The request's method, as sent.
        public let method: String
        /// The request target (`/path?query`), its credentials redacted.
        public let target: String
        /// The status answered; `nil` when the connection was closed instead (a stubbed network error).
        public let status: Int?
        /// The stub that answered (its name, or what it matches), or why none did.
        public let answeredBy: String

        /// `METHOD target -> status (answeredBy)`.
        public var description: String {
            "\(method) \(target) -> \(status.map(String.init) ?? "closed") (\(answeredBy))"
        }
    }
}
