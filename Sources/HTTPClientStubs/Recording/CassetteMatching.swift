import Foundation
import HTTPClient

/// Which recorded exchange answers a request: method and URL always (query order ignored);
/// optionally the body (JSON compared as JSON) and chosen headers. Each is compared redacted on
/// both sides, so a request with the real token matches the recording of `REDACTED`.
public struct CassetteMatching: Sendable {
    /// Whether the body must match too (JSON compared as JSON).
    package var body: Bool
    /// Headers whose values must match too (names case-insensitive).
    package var headers: [String]
    /// Whether the scheme, host and port must match too. A server replaying a cassette
    /// (`httpc serve`) leaves them out: its clients reach it at whatever address they use
    /// (`localhost`, `192.168.1.20`), and each request's URL has the host its `Host` line names.
    package var comparesOrigin = true

    /// Matching on method and URL, and on the body and `headers` when given.
    public init(body: Bool = false, headers: [String] = []) {
        self.body = body
        self.headers = headers
    }
}
