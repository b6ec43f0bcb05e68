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

/// Calls a server's ``StubServer/Configuration/log`` on a queue of its own, in the order the
/// answers were decided: a log call that blocks (a `print` to an output nobody reads) holds up
/// the log, never the connections. Entries waiting past ``maximumWaiting`` are dropped rather
/// than held without bound.
final class LogRelay: Sendable {
    private let log: @Sendable (StubServer.LogEntry) -> Void
    private let queue = DispatchQueue(label: "StubServer log")
    private let waiting = Locked(0)
    static let maximumWaiting = 10_000

    init(_ log: @escaping @Sendable (StubServer.LogEntry) -> Void) {
        self.log = log
    }

    func send(_ entry: StubServer.LogEntry) {
        let accepted = waiting.withLock { waiting in
            guard waiting < Self.maximumWaiting else { return false }
            waiting += 1
            return true
        }
        guard accepted else { return }
        queue.async { [self] in
            log(entry)
            waiting.withLock { $0 -= 1 }
        }
    }
}
