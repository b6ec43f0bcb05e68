import Foundation

/// What a stub answers, in `stub(.get, ...)` and in ``RequestMatcher/path(_:)``: a path
/// (`"/users/1"`), a path template (`"/users/{id}"`, whose `id` is captured into
/// ``RecordedRequest/pathParameters``), a full URL (`"https://api.example.com/users?page=2"`,
/// which also fixes the scheme, the host and the exact query), or a prefix (`.prefix("/v2")`).
/// Paths are compared percent-decoded; a query's names and values as the bytes they
/// percent-decode to, as the query conditions of ``RequestMatcher`` compare them.
public struct StubTarget: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// How the path must match.
    let path: PathPattern
    /// Scheme, host and query conditions (the path is matched through ``path``).
    let otherConditions: [RequestMatcher]
    /// The exact query, as the registry indexes it (``QueryKey/query(in:)``), when the target
    /// has one.
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
            // Read as a request's query is, so the two keys agree.
            let url = Self.queryAsURLsCarryIt(query)
            let pairs = QueryKey.pairs(in: url)
            conditions.append(.queryExactly(pairs: pairs, shown: RecordedRequest.queryItems(in: url)))
            queryKey = QueryKey.query(pairs: pairs)
        }
        otherConditions = conditions
        self.queryKey = queryKey
    }

    /// `?query`, as a request made from the target's own text carries it. A query with a
    /// character a URL cannot carry as written (a space, `é`, `|`) is escaped by `URL(string:)`,
    /// and on Linux every `%` in it too (`?q=é&x=%41` asks for `x=%2541`, the text `%41`): such
    /// a query is read as `URL(string:)` writes it, so that request finds the stub on every
    /// platform. Any other query is read as written.
    private static func queryAsURLsCarryIt(_ query: Substring) -> String {
        let written = "?" + query
        guard query.utf8.contains(where: { !isAllowedInQuery($0) }),
            let escaped = URL(string: "http://h/" + written)?.absoluteString,
            let mark = escaped.utf8.firstIndex(of: UInt8(ascii: "?"))
        else { return written }
        return String(escaped[mark...])
    }

    /// The bytes RFC 3986 lets a query hold as written: letters, digits, `-._~`, the
    /// sub-delimiters, `:@/?` and `%`.
    private static func isAllowedInQuery(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "-._~!$&'()*+,;=:@/?%#".utf8.contains(byte)
        }
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

extension StubTarget {
    /// How a target matches a URL path: exactly, by prefix, or by a template with captures
    /// (`"/users/{id}"` captures `id` into ``RecordedRequest/pathParameters``).
    struct PathPattern: Sendable, Hashable, CustomStringConvertible {
        enum Kind: Sendable, Hashable {
            case exact(String)
            case prefix(String)
            case template([Segment])
        }

        enum Segment: Sendable, Hashable {
            case literal(String)
            case capture(String)
        }

        let kind: Kind
        let description: String

        /// An exact path, or a template when it contains `{name}` segments.
        init(_ pattern: String) {
            description = pattern
            if pattern.contains("{") {
                kind = .template(
                    pattern.split(separator: "/", omittingEmptySubsequences: false).map { part in
                        if part.hasPrefix("{"), part.hasSuffix("}"), part.count > 2 {
                            return .capture(String(part.dropFirst().dropLast()))
                        }
                        return .literal(String(part))
                    })
            } else {
                kind = .exact(pattern)
            }
        }

        /// Exactly `path`, even when it contains `{` (a recorded path is never a template).
        static func exact(_ path: String) -> PathPattern {
            PathPattern(kind: .exact(path), description: path)
        }

        /// Paths that start with `prefix`.
        static func prefix(_ prefix: String) -> PathPattern {
            PathPattern(kind: .prefix(prefix), description: "\(prefix)*")
        }

        private init(kind: Kind, description: String) {
            self.kind = kind
            self.description = description
        }

        /// The exact path, when this pattern is one: what the registry indexes on.
        var exactPath: String? {
            if case .exact(let path) = kind { return path }
            return nil
        }

        /// The leading whole segments every matching path starts with, when the pattern fixes
        /// any: `/v1/users` for `/v1/users/{id}` and for the prefix `/v1/users/`, `/v1` for the
        /// prefix `/v1/us`, nil for `/{kind}/1` or the prefix `/v`. Lets the registry index
        /// templates and prefixes: a thousand templates that share their first segment
        /// (`/v1/res{N}/{id}`) still land in a thousand buckets.
        var fixedLeadingSegments: String? {
            let literals: [Substring]
            switch kind {
            case .exact:
                return nil
            case .template(let segments):
                // After the empty segment before the leading "/", the literals up to the first
                // capture, never the last segment (a whole path is not a prefix of itself).
                guard segments.first == .literal("") else { return nil }
                literals = segments.dropFirst().dropLast().prefix { if case .literal = $0 { true } else { false } }.map {
                    if case .literal(let text) = $0 { Substring(text) } else { "" }
                }
            case .prefix(let prefix):
                // "/v1/users/x" fixes "v1" and "users": only segments a "/" follows are whole.
                let parts = prefix.split(separator: "/", omittingEmptySubsequences: false)
                guard parts.count > 2, parts[0].isEmpty else { return nil }
                literals = Array(parts.dropFirst().dropLast())
            }
            return literals.isEmpty ? nil : "/" + literals.joined(separator: "/")
        }

        /// The captures when `path` matches (empty for exact and prefix patterns), else `nil`.
        func match(_ path: String) -> [String: String]? {
            switch kind {
            case .exact(let expected):
                return path == expected ? [:] : nil
            case .prefix(let prefix):
                return path.hasPrefix(prefix) ? [:] : nil
            case .template(let segments):
                let parts = path.split(separator: "/", omittingEmptySubsequences: false)
                guard parts.count == segments.count else { return nil }
                var captures: [String: String] = [:]
                for (segment, part) in zip(segments, parts) {
                    switch segment {
                    case .literal(let literal):
                        guard literal == part else { return nil }
                    case .capture(let name):
                        guard !part.isEmpty else { return nil }
                        captures[name] = String(part)
                    }
                }
                return captures
            }
        }
    }
}
