import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@Suite("Building URLs")
struct URLBuildingTests {
    func sentURL(base: String?, _ request: HTTPClient.Request<Data>) throws -> String? {
        let session = MockURLSession()
        let client = HTTPClient(session: session, baseURL: base.flatMap(URL.init(string:)))
        let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()
        client.send(request, completion: recorder.record)
        if case .failure(let error)? = recorder.value, case .invalidURL = error { throw error }
        return session.lastURL?.absoluteString
    }

    @Test(
        "joining a path keeps the base URL's path",
        arguments: [
            ("https://h/api/v2", "users", "https://h/api/v2/users"),
            ("https://h/api/v2/", "users", "https://h/api/v2/users"),
            ("https://h/api/v2", "/users", "https://h/api/v2/users"),
            ("https://h/api/v2/", "//users/", "https://h/api/v2/users/"),
            ("https://h", "users/1", "https://h/users/1"),
            ("https://h:8080/", "a/b", "https://h:8080/a/b"),
            ("https://h/api", "users?page=2", "https://h/api/users?page=2"),
            ("https://h/api?key=1", "users", "https://h/api/users?key=1"),
            ("https://h/api", "john doe/ü", "https://h/api/john%20doe/%C3%BC"),
            ("https://h/api", "already%20encoded", "https://h/api/already%20encoded"),
            ("https://h/api", "50%off", "https://h/api/50%25off"),
        ])
    func joinsPathOntoBase(base: String, path: String, expected: String) throws {
        #expect(try sentURL(base: base, .get(path)) == expected)
    }

    @Test func absoluteURLStringIgnoresTheBase() throws {
        #expect(try sentURL(base: "https://h/api", .get("https://other.example/x")) == "https://other.example/x")
    }

    @Test(
        "query items are strictly percent-encoded",
        arguments: [
            (URLQueryItem(name: "q", value: "a b"), "q=a%20b"),
            (URLQueryItem(name: "q", value: "1+1=2"), "q=1%2B1%3D2"),
            (URLQueryItem(name: "q", value: "a&b"), "q=a%26b"),
            (URLQueryItem(name: "q", value: "café"), "q=caf%C3%A9"),
            (URLQueryItem(name: "q", value: "a/b?c"), "q=a%2Fb%3Fc"),
            (URLQueryItem(name: "flag", value: nil), "flag"),
            (URLQueryItem(name: "q", value: "%41 is not A"), "q=%2541%20is%20not%20A"),
            (URLQueryItem(name: "q", value: "100%"), "q=100%25"),
            (URLQueryItem(name: "ключ", value: "~._-"), "%D0%BA%D0%BB%D1%8E%D1%87=~._-"),
        ])
    func encodesQueryItems(item: URLQueryItem, expected: String) throws {
        let request = HTTPClient.Request<Data>.get(url("https://h/s"), query: [item])
        #expect(try sentURL(base: nil, request) == "https://h/s?" + expected)
    }

    @Test func repeatedKeysKeepTheirOrderAndAppendToAnExistingQuery() throws {
        let request = HTTPClient.Request<Data>.get(
            url("https://h/s?x=1"),
            query: [
                URLQueryItem(name: "tag", value: "b"), URLQueryItem(name: "tag", value: "a"),
            ])
        #expect(try sentURL(base: nil, request) == "https://h/s?x=1&tag=b&tag=a")
    }

    @Test(
        "bad targets are typed errors",
        arguments: [
            (nil as String?, "users", "it is a relative path and the client has no base URL"),
            (nil, "https://exa mple.com", "it is not a well-formed URL"),
            (nil, "https://", "it has no host"),
            ("https://h", "://x", "it has no scheme"),
        ])
    func badTargetsThrow(base: String?, path: String, reason: String) {
        #expect {
            try sentURL(base: base, .get(path))
        } throws: { error in
            guard case .invalidURL(let given, let actual) = error as? HTTPClientError else { return false }
            return given == path && actual == reason
        }
    }
}
