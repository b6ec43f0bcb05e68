import Foundation
import HTTPClient

/// Why a ``StubServer`` answered a forwarded request 502: its upstream gave no answer it could
/// pass on. The answer's body and the log line say it.
enum UpstreamError: Error, CustomStringConvertible, Equatable {
    /// The request could not be sent, or no whole answer came back; `reason` is the session's.
    case unreachable(url: String, reason: String)
    /// The answer's body is larger than `limit` bytes, the most the server takes from its upstream.
    case bodyTooLarge(url: String, limit: Int)

    var description: String {
        switch self {
        case .unreachable(let url, let reason):
            "The upstream gave no answer to \(url): \(reason)"
        case .bodyTooLarge(let url, let limit):
            "The upstream's answer to \(url) has a body larger than \(limit) bytes, the most a StubServer takes from its "
                + "upstream (StubServer.Upstream.maximumBodyBytes); it was not passed on, nor recorded."
        }
    }
}
