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
        /// How many entries were dropped just before this one because too many waited for the
        /// log (it blocked, or fell behind a flood of large requests): 0 unless some were.
        public internal(set) var droppedBefore = 0

        /// `METHOD target -> status (answeredBy)`.
        public var description: String {
            "\(method) \(target) -> \(status.map(String.init) ?? "closed") (\(answeredBy))"
        }
    }
}

/// Calls a server's ``StubServer/Configuration/log`` on a queue of its own, in the order the
/// answers were decided: a log call that blocks (a `print` to an output nobody reads) holds up
/// the log, never the connections. Each entry is made on that queue too (redacting a target of
/// tens of kilobytes takes a debug build milliseconds). Past 10,000 entries or 4 MiB of
/// requests waiting, entries are dropped rather than held without bound.
final class LogRelay: Sendable {
    private let log: @Sendable (StubServer.LogEntry) -> Void
    private let relay = BoundedRelay(label: "StubServer log", maximumWaiting: 10_000, maximumWaitingBytes: 4 << 20)

    init(_ log: @escaping @Sendable (StubServer.LogEntry) -> Void) {
        self.log = log
    }

    /// Logs the entry `entry` makes, for a request whose target is `target`; `bytes` is what
    /// `entry` holds until it runs.
    func send(target: String, bytes: Int, _ entry: @escaping @Sendable (_ target: String) -> StubServer.LogEntry) {
        relay.send(bytes: bytes) { [log] dropped in
            var entry = entry(target)
            entry.droppedBefore = dropped
            log(entry)
        }
    }
}
