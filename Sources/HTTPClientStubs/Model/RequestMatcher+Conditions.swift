import Foundation
import HTTPClient

// MARK: - Built-in matchers

extension RequestMatcher {
    /// The method, such as `.get`.
    public static func method(_ method: HTTPMethod) -> RequestMatcher {
        RequestMatcher(Condition("method \(method)", read: \.method, accepts: { $0 == method }, reason: { "method \($0) != \(method)" }))
    }

    /// The URL scheme, case-insensitively.
    public static func scheme(_ scheme: String) -> RequestMatcher {
        // Folded once, here: each request is then compared byte by byte, its side folded alone.
        let lowercased = scheme.asciiLowercased
        return RequestMatcher(
            Condition(
                "scheme \(scheme)", read: \.scheme, accepts: { $0.caseInsensitiveEquals(asciiLowercased: lowercased) },
                reason: { "scheme \($0) != \(scheme)" }))
    }

    /// The host, case-insensitively (and the port, when `host` is written `name:port`).
    public static func host(_ host: String) -> RequestMatcher {
        // Decided once: whether the expected host names a port (`name:port`, `[::1]:8080`; the
        // colons inside an IPv6 literal's brackets are not one).
        let afterLiteral = host.utf8.lastIndex(of: UInt8(ascii: "]")) ?? host.utf8.startIndex
        let withPort = host.utf8[afterLiteral...].contains(UInt8(ascii: ":"))
        let lowercased = host.asciiLowercased
        return RequestMatcher(
            Condition(
                "host \(host)", read: { withPort ? $0.authority : $0.hostName },
                accepts: { $0.caseInsensitiveEquals(asciiLowercased: lowercased) }, reason: { "host \($0) != \(host)" }))
    }

    /// The whole URL, as written (`"https://cdn.example/logo.png"`); with `ignoringQuery`, the
    /// query (and fragment) of the request and of `url` are left out of the comparison.
    public static func url(_ url: String, ignoringQuery: Bool = false) -> RequestMatcher {
        let expected = ignoringQuery ? withoutQuery(url) : url
        let actual: @Sendable (RecordedRequest) -> String = { request in
            ignoringQuery ? withoutQuery(request.url.absoluteString) : request.url.absoluteString
        }
        return RequestMatcher(
            Condition(
                ignoringQuery ? "URL \(expected) (any query)" : "URL \(url)", read: actual, accepts: { $0 == expected },
                reason: { "URL \($0) != \(expected)" }))
    }

    private static func withoutQuery(_ url: String) -> String {
        url.firstIndex { $0 == "?" || $0 == "#" }.map { String(url[..<$0]) } ?? url
    }

    /// The percent-decoded path: exact, `.prefix("/v2")`, or a template `"/users/{id}"`; a
    /// target written as a full URL (`"https://api.example.com/users?page=2"`) also sets its
    /// scheme, host and exact query.
    public static func path(_ target: StubTarget) -> RequestMatcher {
        target.matcher
    }

    /// The path condition of a target.
    static func path(pattern: StubTarget.PathPattern) -> RequestMatcher {
        RequestMatcher(
            Condition(
                "path \(pattern)", read: \.path, verdict: { path in pattern.match(path).map { Captures(pathParameters: $0) } },
                reason: { "path \($0) != \(pattern)" }, nearness: { sharedPrefixRatio($0, pattern.description) }))
    }

    /// Query items present with these values, in any order; other items are allowed. A value
    /// of `""` matches both `?flag=` and a bare `?flag`; to tell them apart, pass
    /// `URLQueryItem`s instead. Every query condition compares bytes: the UTF-8 of the names and
    /// values given, and what the request's names and values percent-decode to. `"é"` matches
    /// `%C3%A9` (or `%c3%a9`), never `e%CC%81`; `"%FF"` is the text sent as `%25FF`.
    /// - Parameter items: The names and values that must be present.
    public static func query(_ items: [String: String]) -> RequestMatcher {
        itemsCondition(.query, sorted(items), exactly: false, loose: true)
    }

    /// Query items present, in any order; other items are allowed. A `nil` value is a bare
    /// name (`?flag`), `""` an empty one (`?flag=`): each matches only itself.
    /// - Parameter items: The items that must be present (a name repeated: each value present).
    public static func query(_ items: [URLQueryItem]) -> RequestMatcher {
        itemsCondition(.query, items, exactly: false, loose: false)
    }

    /// Exactly these query items, in any order, each name once; `""` matches a bare name too.
    /// - Parameter items: The names and values of the whole query.
    public static func queryExactly(_ items: [String: String]) -> RequestMatcher {
        itemsCondition(.query, sorted(items), exactly: true, loose: true)
    }

    /// Exactly these query items, in any order (repeated names must repeat); a `nil` value
    /// matches only a bare name (`?flag`), `""` only an empty one (`?flag=`).
    /// - Parameter items: The items of the whole query.
    public static func queryExactly(_ items: [URLQueryItem]) -> RequestMatcher {
        itemsCondition(.query, items, exactly: true, loose: false)
    }

    /// The body is a URL-encoded form with these fields, in any order (others allowed). A
    /// value of `""` matches both `flag=` and a bare `flag`.
    /// - Parameter fields: The names and values that must be present.
    public static func formBody(_ fields: [String: String]) -> RequestMatcher {
        itemsCondition(.form, sorted(fields), exactly: false, loose: true)
    }

    /// The body is a URL-encoded form with these fields, in any order (others allowed); a
    /// `nil` value is a bare name (`a&b=1`: `a`), `""` an empty one (`a=`).
    /// - Parameter fields: The fields that must be present (a name repeated: each value present).
    public static func formBody(_ fields: [URLQueryItem]) -> RequestMatcher {
        itemsCondition(.form, fields, exactly: false, loose: false)
    }

    /// The body is a URL-encoded form of exactly these fields, in any order, each name once;
    /// `""` matches a bare name too.
    /// - Parameter fields: The names and values of the whole form.
    public static func formBodyExactly(_ fields: [String: String]) -> RequestMatcher {
        itemsCondition(.form, sorted(fields), exactly: true, loose: true)
    }

    /// The body is a URL-encoded form of exactly these fields, in any order (repeated names
    /// must repeat); a `nil` value matches only a bare name, `""` only an empty one.
    /// - Parameter fields: The fields of the whole form.
    public static func formBodyExactly(_ fields: [URLQueryItem]) -> RequestMatcher {
        itemsCondition(.form, fields, exactly: true, loose: false)
    }

    /// Where name-value items are read: the URL's query or a form body.
    private enum ItemSource {
        case query, form
    }

    /// The exact query of a target (``StubTarget``): the keys of its pairs, read from its text
    /// as a request's are, and its items as they are shown.
    static func queryExactly(pairs: [String], shown items: [URLQueryItem]) -> RequestMatcher {
        itemsCondition(.query, pairs, shown: items, exactly: true, loose: false)
    }

    private static func itemsCondition(
        _ source: ItemSource, _ items: [URLQueryItem], exactly: Bool, loose: Bool
    ) -> RequestMatcher {
        itemsCondition(source, items.map { QueryKey.pair(name: $0.name, value: $0.value) }, shown: items, exactly: exactly, loose: loose)
    }

    /// The one definition of the query and form conditions, on the keys of the pairs
    /// (``QueryKey``), so names and values are compared as the bytes they decode to. `loose`: a
    /// bare name and an empty value are the same. `exactly`: the request has these pairs and no
    /// others (repeated ones counted); otherwise each expected pair is present.
    private static func itemsCondition(
        _ source: ItemSource, _ pairs: [String], shown items: [URLQueryItem], exactly: Bool, loose: Bool
    ) -> RequestMatcher {
        let expected = loose ? pairs.map(QueryKey.withEmptyValue) : pairs
        let noun = source == .query ? "query" : "form"
        let description = "\(noun) \(exactly ? "exactly" : "contains") \(format(items))"
        // The request's pairs: its query's are read once per request and shared by every condition.
        let read: @Sendable (RecordedRequest) -> (pairs: [String], request: RecordedRequest) =
            switch source {
            case .query: { ($0.queryPairKeys, $0) }
            case .form: { ($0.formItems.map { QueryKey.pair(name: $0.name, value: $0.value) }, $0) }
            }
        let shown: @Sendable (RecordedRequest) -> [URLQueryItem] =
            switch source {
            case .query: { $0.queryItems }
            case .form: { $0.formItems }
            }
        guard exactly else {
            let isPresent: @Sendable (String, [String]) -> Bool = { pair, actual in
                actual.contains { $0 == pair || (loose && Self.isBare($0, of: pair)) }
            }
            return RequestMatcher(
                Condition(
                    description, read: read, accepts: { actual in expected.allSatisfy { isPresent($0, actual.pairs) } },
                    reason: { actual in
                        let missing = zip(items, expected).filter { !isPresent($0.1, actual.pairs) }.map(\.0)
                        return "\(noun) \(format(shown(actual.request))) lacks \(format(missing))"
                    },
                    // Filed under its first item (a registry then finds it by that item's value);
                    // the test still checks them all.
                    requires: source == .query ? expected.first.map(RequiredValue.queryItem) : nil))
        }
        let expectedKey = QueryKey.query(pairs: expected)
        let reason: @Sendable ((pairs: [String], request: RecordedRequest)) -> String = {
            "\(noun) \(format(shown($0.request))) != \(format(items))"
        }
        if source == .query, !loose {
            // The request's key is built once, without a string per pair for a plain query.
            return RequestMatcher(
                Condition(description, read: { ([], $0) }, accepts: { $0.request.queryKey == expectedKey }, reason: reason))
        }
        let key: @Sendable ([String]) -> String = { QueryKey.query(pairs: loose ? $0.map(QueryKey.withEmptyValue) : $0) }
        return RequestMatcher(Condition(description, read: read, accepts: { key($0.pairs) == expectedKey }, reason: reason))
    }

    /// Whether `actual` is the bare name whose empty value is `pair` (`flag` for `flag=`),
    /// compared in place.
    private static func isBare(_ actual: String, of pair: String) -> Bool {
        pair.utf8.count == actual.utf8.count + 1 && pair.utf8.last == UInt8(ascii: "=") && pair.utf8.starts(with: actual.utf8)
            && !actual.utf8.contains(UInt8(ascii: "="))
    }

    private static func sorted(_ items: [String: String]) -> [URLQueryItem] {
        items.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
    }

    /// A header is present (name case-insensitive), with `value` if given.
    public static func header(_ name: String, _ value: String? = nil) -> RequestMatcher {
        let lowercasedName = name.asciiLowercased
        return RequestMatcher(
            Condition(
                value.map { "header \(name): \($0)" } ?? "header \(name)",
                read: { $0.headerValue(lowercasedName: lowercasedName) },
                accepts: { actual in actual != nil && (value == nil || actual == value) },
                reason: { actual in
                    guard let actual else { return "header \(name) is missing" }
                    let redaction = Redaction.standard
                    let expected = redaction.redacted(header: name, value: value ?? "")
                    return "header \(name): \(redaction.redacted(header: name, value: actual)) != \(expected)"
                }, requires: value.map { RequiredValue(field: .header(lowercasedName), value: $0) }))
    }

    /// All these headers are present with these values (names case-insensitive).
    public static func headers(_ headers: [String: String]) -> RequestMatcher {
        let matchers = headers.sorted { $0.key < $1.key }.map { header($0.key, $0.value) }
        return RequestMatcher(.all(matchers.map(\.node)))
    }

    /// The body is exactly these bytes.
    public static func body(_ data: Data) -> RequestMatcher {
        bodyCondition(
            "body of \(data.count) bytes", read: \.body, accepts: { $0 == data }, reason: { "body \(excerpt($0)) != \(excerpt(data))" })
    }

    /// The body is exactly this UTF-8 text.
    public static func body(_ text: String) -> RequestMatcher {
        let data = Data(text.utf8)
        return bodyCondition(
            "body \(excerpt(data))", read: \.body, accepts: { $0 == data }, reason: { "body \(excerpt($0)) != \(excerpt(data))" })
    }

    /// The body is JSON equal to `expected` (key order and formatting ignored).
    public static func jsonBody(_ expected: JSONValue) -> RequestMatcher {
        bodyCondition(
            "JSON body \(expected)", read: { (body: $0.body, json: $0.json) }, accepts: { $0.json == expected },
            reason: { actual in
                guard let json = actual.json else { return "body \(excerpt(actual.body)) is not JSON" }
                return "JSON body \(json) != \(expected)"
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
        // The value read is the request itself: the verdict walks the body without building
        // it (see `RecordedRequest.jsonContains`), and only a report parses it to quote it.
        bodyCondition(
            "JSON body containing \(expected)", read: { $0 }, accepts: { $0.jsonContains(expected) },
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

    /// Any condition of your own, named for reports.
    public static func custom(
        _ description: String, _ predicate: @escaping @Sendable (RecordedRequest) -> Bool
    ) -> RequestMatcher {
        RequestMatcher(Condition(description, read: predicate, accepts: { $0 }, reason: { _ in "\(description) is false" }))
    }

    /// A condition on the body, which fails with the reason when the transport never saw the
    /// body (see `isBodyHidden`).
    private static func bodyCondition<Value>(
        _ description: String, read: @escaping @Sendable (RecordedRequest) -> Value,
        accepts: @escaping @Sendable (Value) -> Bool, reason: @escaping @Sendable (Value) -> String
    ) -> RequestMatcher {
        // `nil`: the transport never saw the body, so there is nothing to read.
        RequestMatcher(
            Condition(
                description, read: { $0.isBodyHidden ? nil : read($0) }, accepts: { $0.map(accepts) ?? false },
                reason: { value in
                    guard let value else {
                        return "the body of this upload task never reached the stub: URLSession keeps an upload's body from "
                            + "URLProtocols; use MockURLSession, or a data task with httpBody"
                    }
                    return reason(value)
                }))
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

    /// `{a=1, flag}`: a bare name is written without `=`, as in the URL.
    static func format(_ items: [URLQueryItem]) -> String {
        "{" + items.map { item in item.value.map { "\(item.name)=\($0)" } ?? item.name }.joined(separator: ", ") + "}"
    }

    static func excerpt(_ data: Data) -> String {
        guard !data.isEmpty else { return "(empty)" }
        guard let text = TextExcerpt(data, limit: 120) else { return "<\(data.count) bytes>" }
        return "\"" + text.text + (text.isTruncated ? "…" : "") + "\""
    }
}
