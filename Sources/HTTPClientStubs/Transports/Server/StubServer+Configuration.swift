import Foundation
import HTTPClient

extension StubServer {
    /// Where a ``StubServer`` listens and how it answers what no stub matches.
    public struct Configuration: Sendable {
        /// The address to bind: ``Address/loopback`` unless another is asked for explicitly.
        public var address: Address = .loopback
        /// The port to bind; 0 (the default) lets the system pick a free one (see ``StubServer/port``).
        public var port: Int = 0
        /// The status of the answer to a request no stub matches (its body is the report, with
        /// credentials redacted): 404 by default.
        public var unmatchedStatus: Int = 404
        /// Where the requests nothing answers go, instead of the unmatched answer (with the
        /// exchanges recorded when it names a file); also where the registry's pass-through rules
        /// send theirs. `nil` (the default): nowhere, and a pass-through is answered 502.
        public var upstream: Upstream?
        /// Called once per request, after its answer is decided, in that order, on a queue of its
        /// own: a call that blocks holds up the log, not the server (past 10,000 waiting entries,
        /// further ones are dropped).
        public var log: (@Sendable (LogEntry) -> Void)?

        /// How much a client may send and how long it may take (internal: the defaults suit tests;
        /// the server's own tests lower them).
        var limits = HTTPServerLimits()
        /// The most connections open at once; one more is accepted, answered 503 and closed. 512,
        /// or, when the process may open fewer descriptors, half of what is left after 64 kept for
        /// the rest of the process (each connection of a test's client in the same process takes
        /// two), at least 8.
        package var maximumConnections = StubServer.Configuration.defaultMaximumConnections
        /// Seconds a request head may take to arrive whole, from its first byte: a client that
        /// sends it slower is answered 408 and closed, however often it sends a byte.
        var headTimeout: TimeInterval = 20
        /// Seconds a client may go quiet in the middle of a request before it is answered 408.
        var readTimeout: TimeInterval = 30
        /// Seconds a kept-alive connection may wait for its next request before it is closed.
        var idleTimeout: TimeInterval = 60

        /// The defaults: loopback IPv4, a free port, 404 for unmatched requests, no log.
        public init() {}

        static let defaultMaximumConnections: Int = {
            guard let limit = Socket.descriptorLimit else { return 512 }
            return min(512, max(8, (limit - 64) / 2))
        }()
    }

    /// The interface a ``StubServer`` listens on.
    public enum Address: Sendable, Hashable {
        /// `127.0.0.1`: only this machine can connect.
        case loopback
        /// `::1`, the IPv6 loopback address.
        case loopbackIPv6
        /// Any numeric address of this machine, such as `0.0.0.0` (every interface: other machines can connect).
        case custom(String)

        var host: String {
            switch self {
            case .loopback: "127.0.0.1"
            case .loopbackIPv6: "::1"
            case .custom(let host): host
            }
        }
    }
}
