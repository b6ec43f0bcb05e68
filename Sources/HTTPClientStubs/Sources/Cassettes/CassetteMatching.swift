import Foundation
import HTTPClient

/// Which recorded exchange answers a request: the method and the URL (query order ignored);
/// optionally the body (JSON compared as JSON) and chosen headers. Each is compared redacted on
/// both sides, so a request with the real token matches the recording of `REDACTED`.
///
/// ```swift
/// CassetteMatching()                                        // method, origin, path, query
/// CassetteMatching(ignoringOrigin: true, ignoringQuery: true)  // method and path only
/// CassetteMatching(body: true, headers: ["Accept"])         // and the body, and Accept
/// ```
public struct CassetteMatching: Sendable {
    /// Whether the body must match too (JSON compared as JSON).
    package var body: Bool
    /// Headers whose values must match too (names case-insensitive).
    package var headers: [String]
    /// Whether the scheme, host and port must match too. A server replaying a cassette
    /// (`httpc serve`) leaves them out: its clients reach it at whatever address they use
    /// (`localhost`, `192.168.1.20`), and each request's URL has the host its `Host` line names.
    package var comparesOrigin = true
    /// Whether the query must match too (its items in any order).
    package var comparesQuery = true

    /// Matching on the method and the URL, and on the body and `headers` when given.
    ///
    /// - Parameters:
    ///   - body: Whether the body must match too.
    ///   - headers: Headers whose values must match too.
    ///   - ignoringOrigin: Whether the scheme, host and port may differ (a cassette recorded
    ///     against staging answers production's URLs).
    ///   - ignoringQuery: Whether the query may differ (a cache-buster, a timestamp).
    public init(body: Bool = false, headers: [String] = [], ignoringOrigin: Bool = false, ignoringQuery: Bool = false) {
        self.body = body
        self.headers = headers
        comparesOrigin = !ignoringOrigin
        comparesQuery = !ignoringQuery
    }
}
