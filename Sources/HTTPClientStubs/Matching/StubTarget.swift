import Foundation

/// What a stub answers, in `stub(.get, ...)` and in ``RequestMatcher/path(_:)``: a path
/// (`"/users/1"`), a path template (`"/users/{id}"`, whose `id` is captured into
/// ``RecordedRequest/pathParameters``), a full URL (`"https://api.example.com/users?page=2"`,
/// which also fixes the scheme, the host and the exact query), or a prefix (`.prefix("/v2")`).
/// Paths are compared percent-decoded.
public struct StubTarget: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// How the path must match.
    let path: PathPattern
    /// Scheme, host and query conditions (the path is matched through ``path``).
    let otherConditions: [RequestMatcher]
    /// The exact query, as the registry indexes it, when the target has one.
    let queryKey: String?
    /// The target as written.
    public let description: String

    /// Parses `target`: `scheme://host/path?query`, `/path?query` or a path template.
    public init(_ target: String) {
        description = target
        var rest = Substring(target)
        var conditions: [RequestMatcher] = []
        var queryKey: String?
        if let schemeEnd = rest.range(of: "://") {
            conditions.append(.scheme(String(rest[..<schemeEnd.lowerBound])))
            rest = rest[schemeEnd.upperBound...]
            let hostEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
            conditions.append(.host(String(rest[..<hostEnd])))
            rest = rest[hostEnd...]
        }
        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        let rawPath = rest.isEmpty ? "/" : String(rest)
        path = PathPattern(rawPath.removingPercentEncoding ?? rawPath)
        if let query {
            // Split as a request's query is, so the two keys agree.
            let items = RecordedRequest.queryItems(in: "?" + query)
            conditions.append(.queryExactly(items))
            queryKey = RequestMatcher.queryKey(items)
        }
        otherConditions = conditions
        self.queryKey = queryKey
    }

    /// The target `value` spells, as ``init(_:)`` parses it.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// Paths that start with `prefix` (any scheme, host and query).
    public static func prefix(_ prefix: String) -> StubTarget {
        StubTarget(path: .prefix(prefix))
    }

    /// Exactly `path`, even when it contains `{` (a recorded path is never a template).
    public static func exact(_ path: String) -> StubTarget {
        StubTarget(path: .exact(path))
    }

    private init(path: PathPattern) {
        self.path = path
        otherConditions = []
        queryKey = nil
        description = path.description
    }

    /// Every condition the target sets: the path first, then scheme, host and query.
    var matcher: RequestMatcher {
        otherConditions.reduce(RequestMatcher.path(pattern: path), &&)
    }
}
