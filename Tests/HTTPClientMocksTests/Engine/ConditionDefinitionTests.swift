import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@testable import HTTPClientStubs

/// A condition's routing verdict and its report come from one definition: whatever the request,
/// the report says "matched" exactly when routing does, and gives a reason exactly when it does not.
@Suite("Condition definitions")
struct ConditionDefinitionTests {
    static let conditions: [(kind: String, matcher: RequestMatcher)] = [
        ("method", .method(.post)),
        ("scheme", .scheme("https")),
        ("host", .host("api.example")),
        ("host and port", .host("api.example:8443")),
        ("URL", .url("https://api.example/users/1?page=2")),
        ("URL ignoring the query", .url("https://api.example/users/1", ignoringQuery: true)),
        ("exact path", .path("/users/1")),
        ("path template", .path("/users/{id}")),
        ("path prefix", .path(.prefix("/users/1"))),
        ("query subset", .query(["page": "2"])),
        ("exact query", .queryExactly(["page": "2"])),
        ("query items", .query([URLQueryItem(name: "page", value: "2")])),
        ("exact query items", .queryExactly([URLQueryItem(name: "page", value: "2")])),
        ("header present", .header("X-Variant")),
        ("header value", .header("X-Variant", "2")),
        ("headers", .headers(["X-Variant": "2", "Accept": "application/json"])),
        ("body bytes", .body(Data(#"{"name":"Ada"}"#.utf8))),
        ("body text", .body(#"{"name":"Ada"}"#)),
        ("JSON body", .jsonBody(raw: #"{"name":"Ada"}"#)),
        ("JSON body containing", .jsonBody(containing: .object(["name": .string("Ada")]))),
        ("form fields", .formBody(["name": "Ada"])),
        ("form items", .formBody([URLQueryItem(name: "name", value: "Ada")])),
        ("exact form", .formBodyExactly(["name": "Ada"])),
        ("exact form items", .formBodyExactly([URLQueryItem(name: "name", value: "Ada")])),
        ("custom", .custom("has a body") { !$0.body.isEmpty }),
        ("reason closure", RequestMatcher("path is /users") { $0.path == "/users" ? nil : "path \($0.path) is not /users" }),
        ("negation", !.method(.get)),
        ("either", .method(.put) || .header("X-Variant", "2")),
    ]

    static let requests: [(name: String, request: RecordedRequest)] = {
        let json = Data(#"{"name":"Ada"}"#.utf8)
        let form = Data("name=Ada".utf8)
        return [
            ("plain GET", RecordedRequest(request("GET", "https://api.example/users/1"))),
            (
                "GET with query and header",
                RecordedRequest(
                    request("GET", "https://api.example/users/1?page=2", headers: ["x-variant": "2", "Accept": "application/json"]))
            ),
            ("GET with another header value", RecordedRequest(request("GET", "http://other.example/users", headers: ["X-Variant": "1"]))),
            ("POST of JSON", RecordedRequest(request("POST", "https://api.example:8443/users", body: json))),
            ("POST of a form", RecordedRequest(request("POST", "https://api.example/users/1", body: form))),
            (
                "POST whose body the transport never saw",
                RecordedRequest(request("POST", "https://api.example/users/1"), bodyIsHidden: true)
            ),
        ]
    }()

    @Test("the report's verdict is routing's, for every kind of condition", arguments: conditions.indices)
    func theReportAgreesWithRouting(index: Int) {
        let (kind, matcher) = Self.conditions[index]
        var sawPass = false
        var sawFail = false
        for (name, request) in Self.requests {
            let routed = matcher.matches(request)
            let evaluation = matcher.evaluate(request)
            #expect(evaluation.matched == routed, "\(kind) on \(name)")
            #expect(evaluation.failures.isEmpty == routed, "\(kind) on \(name): \(evaluation.failures)")
            sawPass = sawPass || routed
            sawFail = sawFail || !routed
        }
        // Each kind is asked both ways, so agreement is not agreement on one answer.
        #expect(sawPass && sawFail, "\(kind) passed or failed on every request")
    }

    @Test func aHeaderReasonQuotesTheValueRoutingCompared() {
        let matcher = RequestMatcher.header("X-Variant", "2")
        let other = RecordedRequest(request("GET", "https://api.example/", headers: ["x-variant": "1"]))
        #expect(matcher.evaluate(other).failures == ["header X-Variant: 1 != 2"])
        let missing = RecordedRequest(request("GET", "https://api.example/"))
        #expect(matcher.evaluate(missing).failures == ["header X-Variant is missing"])
        let lowerCased = RecordedRequest(request("GET", "https://api.example/", headers: ["x-variant": "2"]))
        #expect(matcher.evaluate(lowerCased).matched)
    }
}
