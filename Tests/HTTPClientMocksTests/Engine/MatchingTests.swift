import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@Suite("Matching requests")
struct MatchingTests {
    @Test(
        "a recorded request's path is split by hand the way URLComponents splits it",
        arguments: [
            ("https://h/users/1?page=2#top", "/users/1"), ("https://h", "/"), ("https://h?q=1", "/"), ("https://h#f", "/"),
            ("https://user:pw@h:8080/a/b/", "/a/b/"), ("https://h/caf%C3%A9%20bar", "/café bar"), ("https://h/100%", "/100%"),
            ("https://[::1]:80/x?y", "/x"), ("about:blank", "blank"), ("file:///tmp/x", "/tmp/x"),
        ])
    func pathSplitting(url: String, path: String) throws {
        let recorded = RecordedRequest(URLRequest(url: try #require(URL(string: url))))
        #expect(recorded.path == path)
        let components = try #require(URLComponents(string: url))
        if url.contains("://"), !url.hasSuffix("%") {
            #expect(recorded.path == (components.path.isEmpty ? "/" : components.path))
        }
    }

    func evaluate(_ matcher: RequestMatcher, _ urlRequest: URLRequest) -> RequestMatcher.Evaluation {
        matcher.evaluate(RecordedRequest(urlRequest))
    }

    @Test func methodSchemeAndHost() {
        let get = request("GET", "https://API.example.com:8443/x")
        #expect(evaluate(.method(.get), get).matched)
        #expect(evaluate(.method(.post), get).failures == ["method GET != POST"])
        #expect(evaluate(.scheme("HTTPS"), get).matched)
        #expect(evaluate(.scheme("http"), get).failures == ["scheme https != http"])
        #expect(evaluate(.host("api.example.com"), get).matched)
        #expect(evaluate(.host("api.example.com:8443"), get).matched)
        #expect(evaluate(.host("other.example.com"), get).failures == ["host API.example.com != other.example.com"])
    }

    @Test(
        "scheme and host are read from the URL's text: user information, ports and IPv6 literals",
        arguments: [
            ("https://user:pw@API.example.com:8443/x", "api.example.com", "api.example.com:8443", true),
            ("http://[::1]:8080/x?y", "[::1]", "[::1]:8080", false),
            ("https://h.example?q=1", "h.example", "h.example", true),
            ("https://h.example#frag", "h.example", "h.example", true),
        ])
    func hostAndSchemeConditions(url: String, host: String, hostAndPort: String, isHTTPS: Bool) {
        let recorded = request("GET", url)
        #expect(evaluate(.host(host), recorded).matched)
        #expect(evaluate(.host(hostAndPort), recorded).matched)
        #expect(!evaluate(.host("other.example"), recorded).matched)
        #expect(evaluate(.scheme("HTTPS"), recorded).matched == isHTTPS)
        #expect(evaluate(.scheme("http"), recorded).matched == !isHTTPS)
    }

    @Test func aFailedConditionExplainsItselfOnlyInTheReport() {
        let matcher = RequestMatcher.method(.post) && .header("Authorization", "Bearer right") && .query(["page": "2"])
        let get = request("GET", "https://h/x?page=1", headers: ["Authorization": "Bearer wrong"])
        #expect(!matcher.matches(RecordedRequest(get)))
        let evaluation = matcher.evaluate(RecordedRequest(get))
        #expect(evaluation.failures.count == 3)
        #expect(evaluation.failures[0] == "method GET != POST")
        #expect(evaluation.failures[1].hasPrefix("header Authorization: "))
        #expect(!evaluation.failures[1].contains("wrong"))
        #expect(evaluation.failures[2] == "query {page=1} lacks {page=2}")
    }

    @Test func aWholeURLIgnoringTheQueryLeavesOutTheQueryOfBothSides() {
        let matcher = RequestMatcher.url("https://h/img.png?width=200", ignoringQuery: true)
        #expect(evaluate(matcher, request("GET", "https://h/img.png?width=200&x=1")).matched)
        #expect(evaluate(matcher, request("GET", "https://h/img.png")).matched)
        #expect(!evaluate(matcher, request("GET", "https://h/other.png?width=200")).matched)
        #expect(!evaluate(.url("https://h/img.png?width=200"), request("GET", "https://h/img.png?width=300")).matched)
    }

    @Test func pathExactPrefixAndTemplateWithCaptures() {
        let get = request("GET", "https://h/users/42/posts/a%20b")
        #expect(evaluate(.path("/users/42/posts/a b"), get).matched)
        #expect(evaluate(.path("/users/1"), get).failures == ["path /users/42/posts/a b != /users/1"])
        #expect(evaluate(.path(.prefix("/users/")), get).matched)
        #expect(!evaluate(.path(.prefix("/v2")), get).matched)
        let template = evaluate(.path("/users/{id}/posts/{slug}"), get)
        #expect(template.matched)
        #expect(template.captures == ["id": "42", "slug": "a b"])
        #expect(!evaluate(.path("/users/{id}"), get).matched)
        #expect(evaluate(.path("/"), request("GET", "https://h")).matched)
    }

    @Test func pathWrittenAsAFullURLAlsoSetsSchemeHostAndExactQuery() {
        let matcher = RequestMatcher.path("https://api.example.com/users?page=2")
        #expect(evaluate(matcher, request("GET", "https://api.example.com/users?page=2")).matched)
        #expect(!evaluate(matcher, request("GET", "http://api.example.com/users?page=2")).matched)
        #expect(!evaluate(matcher, request("GET", "https://other.example.com/users?page=2")).matched)
        #expect(!evaluate(matcher, request("GET", "https://api.example.com/users?page=3")).matched)
    }

    @Test func pathWrittenPercentEncodedMatchesThePathAsSent() {
        #expect(evaluate(.path("/files/a%20b"), request("GET", "https://h/files/a%20b")).matched)
    }

    @Test func queryIsSubsetOrExactAndOrderInsensitive() {
        let get = request("GET", "https://h/s?b=2&a=1&tag=x&tag=y")
        #expect(evaluate(.query(["a": "1"]), get).matched)
        #expect(evaluate(.query(["a": "1", "b": "2"]), get).matched)
        #expect(evaluate(.query(["a": "9"]), get).failures == ["query {b=2, a=1, tag=x, tag=y} lacks {a=9}"])
        #expect(!evaluate(.queryExactly(["a": "1", "b": "2"]), get).matched)
        let items = ["tag=y", "a=1", "tag=x", "b=2"].map {
            URLQueryItem(name: String($0.prefix { $0 != "=" }), value: String($0.drop { $0 != "=" }.dropFirst()))
        }
        #expect(evaluate(.queryExactly(items), get).matched)
    }

    @Test func headersAreACaseInsensitiveSubset() {
        let get = request("GET", "https://h/", headers: ["Accept": "application/json", "X-Trace": "1"])
        #expect(evaluate(.header("accept"), get).matched)
        #expect(evaluate(.headers(["ACCEPT": "application/json", "x-trace": "1"]), get).matched)
        #expect(evaluate(.header("Accept", "text/html"), get).failures == ["header Accept: application/json != text/html"])
        #expect(evaluate(.header("Authorization"), get).failures == ["header Authorization is missing"])
    }

    @Test func credentialsNeverAppearInReasons() {
        let get = request("GET", "https://h/", headers: ["Authorization": "Bearer secret-token"])
        let reasons = evaluate(.header("Authorization", "Bearer other"), get).failures
        #expect(reasons == ["header Authorization: REDACTED != REDACTED"])
    }

    @Test("the body is found in httpBody and in httpBodyStream", arguments: [false, true])
    func bodyMatchersReadStreams(streamed: Bool) {
        let json = Data(#"{"name": "Ada", "tags": [1, 2], "meta": {"a": true, "b": null}}"#.utf8)
        // A stream can be read once: the request is captured once, as the transports do.
        let post = RecordedRequest(request("POST", "https://h/u", body: json, streamed: streamed))
        #expect(post.body == json)
        #expect(post.urlRequest.httpBody == json)
        #expect(RequestMatcher.body(json).evaluate(post).matched)
        #expect(RequestMatcher.jsonBody(raw: #"{"meta":{"b":null,"a":true},"tags":[1,2],"name":"Ada"}"#).evaluate(post).matched)
        #expect(RequestMatcher.jsonBody(containing: .object(["meta": .object(["a": .bool(true)])])).evaluate(post).matched)
        #expect(!RequestMatcher.jsonBody(containing: .object(["tags": .array([.integer(1)])])).evaluate(post).matched)
        #expect(!RequestMatcher.jsonBody(raw: #"{"name":"Ada"}"#).evaluate(post).matched)
    }

    @Test func stringAndEncodableBodies() {
        struct Login: Encodable { let user: String }
        let post = request("POST", "https://h/", body: Data(#"{"user":"ada"}"#.utf8))
        #expect(evaluate(.body(#"{"user":"ada"}"#), post).matched)
        #expect(evaluate(.jsonBody(Login(user: "ada")), post).matched)
        #expect(evaluate(.jsonBody(containing: ["user": "ada"]), post).matched)
        #expect(evaluate(.body("other"), post).failures == [#"body "{"user":"ada"}" != "other""#])
        #expect(evaluate(.jsonBody(raw: "{"), post).failures == ["the expected JSON body { is not valid JSON"])
    }

    @Test func jsonNumbersCompareByValue() {
        let post = request("POST", "https://h/", body: Data(#"{"n": 1.0}"#.utf8))
        #expect(evaluate(.jsonBody(raw: #"{"n": 1}"#), post).matched)
    }

    @Test func formFieldsAreDecoded() {
        let post = request(
            "POST", "https://h/", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data("name=Ada+Lovelace&lang=en%26fr&empty=".utf8))
        #expect(evaluate(.formBody(["name": "Ada Lovelace", "lang": "en&fr"]), post).matched)
        #expect(evaluate(.formBody(["empty": ""]), post).matched)
        #expect(!evaluate(.formBody(["name": "Bo"]), post).matched)
    }

    @Test func customPredicatesAndCombinations() {
        let get = request("GET", "https://h/v2/items?page=3")
        let isPageThree = RequestMatcher.custom("page is 3") { $0.queryItems.first?.value == "3" }
        #expect(evaluate(.method(.get) && .path(.prefix("/v2")) && isPageThree, get).matched)
        #expect(evaluate(.method(.post) || .path(.prefix("/v2")), get).matched)
        #expect(!evaluate(!.method(.get), get).matched)
        let both = evaluate(.method(.post) && .path("/nope") && .query(["page": "3"]), get)
        #expect(both.failures == ["method GET != POST", "path /v2/items != /nope"])
        #expect(both.passedConditions == 1)
        #expect(both.totalConditions == 3)
        #expect(evaluate(.custom("never") { _ in false }, get).failures == ["never is false"])
        #expect((.method(.get) && .path("/a")).description == "method GET && path /a")
    }
}
