// The examples of MakingRequests.md, compiled and run.
import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

enum API {
    static let me = HTTPClient.Request<User>.get("me")
    static func user(_ id: Int) -> HTTPClient.Request<User> { .get("users/\(id)") }
}

func showMe(client: HTTPClient) async throws {
    let response = try await client.send(API.me)
    print(response.statusCode, response.value.name)
    let user: User = try await client.send(API.user(2)).value  // the type can come from the context
    print(user.name)
}

func reloadFeed(client: HTTPClient) async throws -> Data {
    var request = HTTPClient.Request<Data>.get("feed")
    request.configure = { urlRequest in
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        urlRequest.timeoutInterval = 5
    }
    return try await client.send(request).value
}

@Suite("Making requests examples")
struct RequestExamplesTests {
    @Test func declaredEndpointsAreSentWithTheirTypes() async throws {
        let session = MockURLSession()
        session.enqueue(.json(raw: #"{"id": 1, "name": "Ada"}"#))
        session.enqueue(.json(raw: #"{"id": 2, "name": "Bo"}"#))
        try await showMe(client: HTTPClient(session: session, baseURL: URL(string: "https://api.example.com")))
        #expect(session.requests.map(\.url.path) == ["/me", "/users/2"])
    }

    @Test func theFeedIsReloadedIgnoringTheCache() async throws {
        let session = MockURLSession()
        session.enqueue(.text("items"))
        let body = try await reloadFeed(client: HTTPClient(session: session, baseURL: URL(string: "https://api.example.com")))
        #expect(body == Data("items".utf8))
        #expect(session.requests.last?.urlRequest.cachePolicy == .reloadIgnoringLocalCacheData)
        #expect(session.requests.last?.urlRequest.timeoutInterval == 5)
    }
}
