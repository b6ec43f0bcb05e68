import Foundation
import HTTPClient

/// A condition on a request that says *why* it fails, so unmatched-request reports can explain.
///
/// Combine with `&&`, `||` and `!`:
///
/// ```swift
/// stubs.stub(.post, "/users").matching(.jsonBody(containing: ["name": "Ada"]) && .header("Authorization"))
/// ```
public struct RequestMatcher: Sendable, CustomStringConvertible {
    /// The outcome of one leaf condition.
    enum Check: Sendable {
        case pass(Captures)
        /// `nearness` (0...1) ranks near misses: how close the failed value was.
        case fail(reason: String, nearness: Double = 0)

        static let pass = Check.pass(Captures())
    }

    /// What passing conditions hand to the request they matched.
    package struct Captures: Sendable {
        /// From path templates such as `/users/{id}`.
        var pathParameters: [String: String] = [:]
        /// Where the answer will come from, when a condition found it (a source of stubs that
        /// looks the answer up while matching, such as a folder of files).
        var source: AnswerSource?

        mutating func merge(_ other: Captures) {
            pathParameters.merge(other.pathParameters) { _, new in new }
            if let source = other.source { self.source = source }
        }
    }

    /// A leaf has two ways to be asked: `test` routes requests (a yes or no, with captures, and
    /// no text: most candidates a registry tries are rejected, and formatting a reason for each
    /// cost more than the rest of the match), and `explain` says why, for reports only.
    indirect enum Node: Sendable {
        /// `requires`: a value the condition cannot pass without, which a registry files the
        /// stub under (see ``RequiredValue``).
        case condition(
            description: String, test: @Sendable (RecordedRequest) -> Captures?, explain: @Sendable (RecordedRequest) -> Check,
            requires: RequiredValue? = nil)
        case all([Node])
        case any([Node])
        case not(Node)
    }

    let node: Node

    init(_ node: Node) {
        self.node = node
    }

    /// A leaf condition. `evaluate` returns `nil` when the request passes, or the reason it fails.
    public init(_ description: String, reason evaluate: @escaping @Sendable (RecordedRequest) -> String?) {
        node = .condition(
            description: description, test: { evaluate($0) == nil ? Captures() : nil },
            explain: { request in evaluate(request).map { .fail(reason: $0) } ?? .pass })
    }

    /// A leaf with captures, whose test is its check without the reason.
    init(_ description: String, check: @escaping @Sendable (RecordedRequest) -> Check) {
        node = .condition(
            description: description,
            test: { request in
                if case .pass(let captures) = check(request) { return captures }
                return nil
            }, explain: check)
    }

    /// A leaf whose yes-or-no `test` allocates nothing; `reason` runs only for reports.
    init(
        _ description: String, test: @escaping @Sendable (RecordedRequest) -> Bool,
        reason: @escaping @Sendable (RecordedRequest) -> String, requires: RequiredValue? = nil
    ) {
        node = .condition(
            description: description, test: { test($0) ? Captures() : nil },
            explain: { request in test(request) ? .pass : .fail(reason: reason(request)) }, requires: requires)
    }

    /// The values every request this matcher accepts must carry (a header's value, a query
    /// item's): one from each condition of a conjunction that has one; none under `||` or `!`.
    var requiredValues: [RequiredValue] { Self.requiredValues(node) }

    private static func requiredValues(_ node: Node) -> [RequiredValue] {
        switch node {
        case .condition(_, _, _, let requires): requires.map { [$0] } ?? []
        case .all(let nodes): nodes.flatMap(requiredValues)
        case .any, .not: []
        }
    }

    /// What the matcher requires, such as `method GET && path /users/{id}`.
    public var description: String { Self.describe(node) }

    private static func describe(_ node: Node) -> String {
        switch node {
        case .condition(let description, _, _, _): description
        case .all(let nodes): nodes.isEmpty ? "any request" : nodes.map(describe).joined(separator: " && ")
        case .any(let nodes): "(" + nodes.map(describe).joined(separator: " || ") + ")"
        case .not(let node): "!(\(describe(node)))"
        }
    }

    // MARK: Evaluating

    /// The result of testing a request: whether it matched, the captures, and for a miss
    /// every failed condition and how many conditions passed (to rank near misses).
    public struct Evaluation: Sendable {
        /// Whether every condition passed.
        public var matched: Bool
        /// The path parameters of a match.
        public var captures: [String: String]
        /// Why each failed condition failed, for a miss.
        public var failures: [String]
        /// How many conditions passed.
        public var passedConditions: Int
        /// How many conditions there are.
        public var totalConditions: Int
        /// Partial credit of the failed conditions (a path that differs only at the end is nearer).
        var nearness: Double = 0

        /// Share of conditions that passed, with partial credit for near misses, 0...1.
        public var closeness: Double {
            totalConditions == 0 ? 1 : (Double(passedConditions) + nearness) / Double(totalConditions)
        }
    }

    /// Tests `request`.
    public func evaluate(_ request: RecordedRequest) -> Evaluation {
        Self.evaluate(node, request)
    }

    /// Whether `request` matches. Stops at the first failed condition.
    public func matches(_ request: RecordedRequest) -> Bool {
        Self.quickMatch(node, request) != nil
    }

    /// The path parameters `request` yields when it matches, `nil` when it does not.
    package func captures(matching request: RecordedRequest) -> Captures? {
        Self.quickMatch(node, request)
    }

    private static func quickMatch(_ node: Node, _ request: RecordedRequest) -> Captures? {
        switch node {
        case .condition(_, let test, _, _):
            return test(request)
        case .all(let nodes):
            var captures = Captures()
            for node in nodes {
                guard let found = quickMatch(node, request) else { return nil }
                // Most conditions capture nothing: merging nothing still costs dictionary work.
                if !found.pathParameters.isEmpty || found.source != nil { captures.merge(found) }
            }
            return captures
        case .any(let nodes):
            for node in nodes { if let found = quickMatch(node, request) { return found } }
            return nil
        case .not(let node):
            return quickMatch(node, request) == nil ? Captures() : nil
        }
    }

    private static func evaluate(_ node: Node, _ request: RecordedRequest) -> Evaluation {
        switch node {
        case .condition(_, _, let explain, _):
            switch explain(request) {
            case .pass(let captures):
                return Evaluation(
                    matched: true, captures: captures.pathParameters, failures: [], passedConditions: 1, totalConditions: 1)
            case .fail(let reason, let nearness):
                return Evaluation(
                    matched: false, captures: [:], failures: [reason], passedConditions: 0, totalConditions: 1,
                    nearness: nearness)
            }
        case .all(let nodes):
            var total = Evaluation(matched: true, captures: [:], failures: [], passedConditions: 0, totalConditions: 0)
            for part in nodes.map({ evaluate($0, request) }) {
                total.matched = total.matched && part.matched
                total.captures.merge(part.captures) { _, new in new }
                total.failures += part.failures
                total.passedConditions += part.passedConditions
                total.totalConditions += part.totalConditions
                total.nearness += part.nearness
            }
            return total
        case .any(let nodes):
            let parts = nodes.map { evaluate($0, request) }
            if let hit = parts.first(where: \.matched) { return hit }
            let best = parts.max { $0.closeness < $1.closeness }
            return Evaluation(
                matched: false, captures: [:],
                failures: ["none of: " + parts.flatMap(\.failures).joined(separator: "; ")],
                passedConditions: best?.passedConditions ?? 0, totalConditions: max(best?.totalConditions ?? 1, 1))
        case .not(let inner):
            let part = evaluate(inner, request)
            return part.matched
                ? Evaluation(
                    matched: false, captures: [:], failures: ["request matched !(\(describe(inner)))"],
                    passedConditions: 0, totalConditions: 1)
                : Evaluation(matched: true, captures: [:], failures: [], passedConditions: 1, totalConditions: 1)
        }
    }

    // MARK: Combining

    /// Both must match.
    public static func && (lhs: RequestMatcher, rhs: RequestMatcher) -> RequestMatcher {
        RequestMatcher(.all(lhs.flattenedAll + rhs.flattenedAll))
    }

    /// Either must match.
    public static func || (lhs: RequestMatcher, rhs: RequestMatcher) -> RequestMatcher {
        RequestMatcher(.any([lhs.node, rhs.node]))
    }

    /// Must not match.
    public static prefix func ! (matcher: RequestMatcher) -> RequestMatcher {
        RequestMatcher(.not(matcher.node))
    }

    /// This matcher without its first `count` conditions: what is left to test once an index
    /// has already decided those (a bucket for `GET /items` needs no method or path test).
    func droppingLeadingConditions(_ count: Int) -> RequestMatcher {
        guard count > 0 else { return self }
        let rest = Array(flattenedAll.dropFirst(count))
        return rest.count == 1 ? RequestMatcher(rest[0]) : RequestMatcher(.all(rest))
    }

    private var flattenedAll: [Node] {
        if case .all(let nodes) = node { return nodes }
        return [node]
    }

    /// Matches every request.
    public static let any = RequestMatcher(.all([]))
}

// MARK: - Built-in matchers

extension RequestMatcher {
    /// The method, such as `.get`.
    public static func method(_ method: HTTPMethod) -> RequestMatcher {
        RequestMatcher("method \(method)", test: { $0.method == method }, reason: { "method \($0.method) != \(method)" })
    }

    /// The URL scheme, case-insensitively.
    public static func scheme(_ scheme: String) -> RequestMatcher {
        RequestMatcher(
            "scheme \(scheme)", test: { $0.scheme.caseInsensitiveEquals(scheme) }, reason: { "scheme \($0.scheme) != \(scheme)" })
    }

    /// The host, case-insensitively (and the port, when `host` is written `name:port`).
    public static func host(_ host: String) -> RequestMatcher {
        // Decided once: whether the expected host names a port (`name:port`, `[::1]:8080`; the
        // colons inside an IPv6 literal's brackets are not one).
        let afterLiteral = host.utf8.lastIndex(of: UInt8(ascii: "]")) ?? host.utf8.startIndex
        let withPort = host.utf8[afterLiteral...].contains(UInt8(ascii: ":"))
        return RequestMatcher(
            "host \(host)", test: { (withPort ? $0.authority : $0.hostName).caseInsensitiveEquals(host) },
            reason: { "host \(withPort ? $0.authority : $0.hostName) != \(host)" })
    }

    /// The whole URL, as written (`"https://cdn.example/logo.png"`); with `ignoringQuery`, the
    /// query (and fragment) of the request and of `url` are left out of the comparison.
    public static func url(_ url: String, ignoringQuery: Bool = false) -> RequestMatcher {
        let expected = ignoringQuery ? withoutQuery(url) : url
        let actual: @Sendable (RecordedRequest) -> String = { request in
            ignoringQuery ? withoutQuery(request.url.absoluteString) : request.url.absoluteString
        }
        return RequestMatcher(
            ignoringQuery ? "URL \(expected) (any query)" : "URL \(url)", test: { actual($0) == expected },
            reason: { "URL \(actual($0)) != \(expected)" })
    }

    private static func withoutQuery(_ url: String) -> String {
        url.firstIndex { $0 == "?" || $0 == "#" }.map { String(url[..<$0]) } ?? url
    }

    /// The percent-decoded path: exact, `.prefix("/v2")`, or a template `"/users/{id}"`.
    public static func path(_ pattern: PathPattern) -> RequestMatcher {
        RequestMatcher(
            .condition(
                description: "path \(pattern)", test: { request in pattern.match(request.path).map { Captures(pathParameters: $0) } },
                explain: { request in
                    if let captures = pattern.match(request.path) { return .pass(Captures(pathParameters: captures)) }
                    return .fail(
                        reason: "path \(request.path) != \(pattern)", nearness: sharedPrefixRatio(request.path, pattern.description))
                }))
    }

    /// Query items present with these values, in any order; other items are allowed.
    public static func query(_ items: [String: String]) -> RequestMatcher {
        let expected = items.sorted { $0.key < $1.key }
        let missing: @Sendable ([URLQueryItem]) -> [(key: String, value: String)] = { actual in
            expected.filter { name, value in !actual.contains { $0.name == name && ($0.value ?? "") == value } }
        }
        // Filed under its first item (a registry then finds it by that item's value); the test
        // still checks them all.
        return RequestMatcher(
            "query contains \(format(items))", test: { missing($0.queryItems).isEmpty },
            reason: { request in
                let actual = request.queryItems
                return "query \(format(actual)) lacks \(format(Dictionary(uniqueKeysWithValues: missing(actual))))"
            }, requires: expected.first.map { RequiredValue(field: .queryItem($0.key), value: $0.value) })
    }

    /// Exactly these query items, in any order (repeated names must repeat).
    public static func queryExactly(_ items: [URLQueryItem]) -> RequestMatcher {
        let expected = queryKey(items)
        return RequestMatcher(
            "query exactly \(format(items))", test: { $0.queryKey == expected },
            reason: { "query \(format($0.queryItems)) != \(format(items))" })
    }

    /// The query as the registry indexes it: `name=value` items, sorted, joined by `&` (so the
    /// order of a query does not matter and repeated names count).
    static func queryKey(_ items: [URLQueryItem]) -> String {
        items.map { "\($0.name)=\($0.value ?? "")" }.sorted().joined(separator: "&")
    }

    /// Exactly these query items (each name once), in any order.
    public static func queryExactly(_ items: [String: String]) -> RequestMatcher {
        queryExactly(items.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) })
    }

    /// A header is present (name case-insensitive), with `value` if given.
    public static func header(_ name: String, _ value: String? = nil) -> RequestMatcher {
        let lowercasedName = name.asciiLowercased
        return RequestMatcher(
            value.map { "header \(name): \($0)" } ?? "header \(name)",
            test: { request in
                guard let actual = request.headerValue(lowercasedName: lowercasedName) else { return false }
                return value.map { actual == $0 } ?? true
            },
            reason: { request in
                guard let actual = request.headers[name], let value else { return "header \(name) is missing" }
                let redaction = Redaction.standard
                return
                    "header \(name): \(redaction.redacted(header: name, value: actual)) != \(redaction.redacted(header: name, value: value))"
            }, requires: value.map { RequiredValue(field: .header(lowercasedName), value: $0) })
    }

    /// All these headers are present with these values (names case-insensitive).
    public static func headers(_ headers: [String: String]) -> RequestMatcher {
        let matchers = headers.sorted { $0.key < $1.key }.map { header($0.key, $0.value) }
        return RequestMatcher(.all(matchers.map(\.node)))
    }

    /// The body is exactly these bytes.
    public static func body(_ data: Data) -> RequestMatcher {
        bodyCondition("body of \(data.count) bytes", test: { $0.body == data }, reason: { "body \(excerpt($0.body)) != \(excerpt(data))" })
    }

    /// The body is exactly this UTF-8 text.
    public static func body(_ text: String) -> RequestMatcher {
        let data = Data(text.utf8)
        return bodyCondition("body \(excerpt(data))", test: { $0.body == data }, reason: { "body \(excerpt($0.body)) != \(excerpt(data))" })
    }

    /// The body is JSON equal to `expected` (key order and formatting ignored).
    public static func jsonBody(_ expected: JSONValue) -> RequestMatcher {
        bodyCondition(
            "JSON body \(expected)", test: { $0.json == expected },
            reason: { request in
                guard let actual = request.json else { return "body \(excerpt(request.body)) is not JSON" }
                return "JSON body \(actual) != \(expected)"
            })
    }

    /// The body is JSON equal to `expected` encoded with `JSONEncoder`.
    public static func jsonBody(_ expected: some Encodable) -> RequestMatcher {
        guard let value = try? JSONValue(encoding: expected) else {
            return RequestMatcher("JSON body (unencodable)") { _ in "the expected JSON body could not be encoded" }
        }
        return jsonBody(value)
    }

    /// The body is JSON equal to this JSON text: `.jsonBody(raw: #"{"name":"Ada"}"#)`.
    public static func jsonBody(raw: String) -> RequestMatcher {
        guard let value = try? JSONValue(parsing: Data(raw.utf8)) else {
            return RequestMatcher("JSON body (invalid)") { _ in "the expected JSON body \(raw) is not valid JSON" }
        }
        return jsonBody(value)
    }

    /// The body is JSON that contains `expected` (objects may have extra keys).
    public static func jsonBody(containing expected: JSONValue) -> RequestMatcher {
        bodyCondition(
            "JSON body containing \(expected)", test: { $0.jsonContains(expected) },
            reason: { request in
                guard let actual = request.json else { return "body \(excerpt(request.body)) is not JSON" }
                return "JSON body \(actual) does not contain \(expected)"
            })
    }

    /// The body is JSON that contains `expected` encoded with `JSONEncoder`.
    public static func jsonBody(containing expected: some Encodable) -> RequestMatcher {
        guard let value = try? JSONValue(encoding: expected) else {
            return RequestMatcher("JSON body (unencodable)") { _ in "the expected JSON body could not be encoded" }
        }
        return jsonBody(containing: value)
    }

    /// The body is a URL-encoded form with these fields (others allowed).
    public static func formBody(_ fields: [String: String]) -> RequestMatcher {
        bodyCondition(
            "form fields \(format(fields))",
            test: { request in
                let actual = request.formFields
                return fields.allSatisfy { actual[$0.key] == $0.value }
            },
            reason: { request in
                let actual = request.formFields
                return "form fields \(format(actual)) lack \(format(fields.filter { actual[$0.key] != $0.value }))"
            })
    }

    /// Any condition of your own, named for reports.
    public static func custom(
        _ description: String, _ predicate: @escaping @Sendable (RecordedRequest) -> Bool
    ) -> RequestMatcher {
        RequestMatcher(description, test: predicate, reason: { _ in "\(description) is false" })
    }

    /// A condition on the body, which fails with the reason when the transport never saw the
    /// body (see ``RecordedRequest/isBodyHidden``).
    private static func bodyCondition(
        _ description: String, test: @escaping @Sendable (RecordedRequest) -> Bool,
        reason: @escaping @Sendable (RecordedRequest) -> String
    ) -> RequestMatcher {
        RequestMatcher(
            description, test: { !$0.isBodyHidden && test($0) },
            reason: { request in
                guard request.isBodyHidden else { return reason(request) }
                return "the body of this upload task never reached the stub: URLSession keeps an upload's body from "
                    + "URLProtocols; use MockURLSession, or a data task with httpBody"
            })
    }

    /// The length of the common prefix over the longer length: `/users/2` is nearer to
    /// `/users/1` (7/8) than to `/users/{id}/avatar` (7/18).
    static func sharedPrefixRatio(_ a: String, _ b: String) -> Double {
        let longest = max(a.count, b.count)
        guard longest > 0 else { return 1 }
        return Double(zip(a, b).prefix { $0 == $1 }.count) / Double(longest)
    }

    // MARK: Formatting for reasons

    static func format(_ items: [String: String]) -> String {
        "{" + items.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + "}"
    }

    static func format(_ items: [URLQueryItem]) -> String {
        "{" + items.map { "\($0.name)=\($0.value ?? "")" }.joined(separator: ", ") + "}"
    }

    static func excerpt(_ data: Data) -> String {
        guard !data.isEmpty else { return "(empty)" }
        guard let text = TextExcerpt(data, limit: 120) else { return "<\(data.count) bytes>" }
        return "\"" + text.text + (text.isTruncated ? "…" : "") + "\""
    }
}
