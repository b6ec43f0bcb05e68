// The README's Swift examples, exactly as written (ReadmeIsCompiledTests checks that every
// README block appears here line for line, so the README cannot drift from code that compiles).

import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

struct User: Codable, Sendable {
    let id: Int
    let name: String
}

struct UserService {
    let client: HTTPClient

    init(session: any URLSessionProtocol = URLSession.shared) {
        client = HTTPClient(session: session, baseURL: URL(string: "https://api.example.com/v2"))
    }

    func user(id: Int) async throws(HTTPClientError) -> User {
        try await client.send(.get("users/\(id)"), as: User.self)
    }
}

@Test func fetchesTheUser() async throws {
    let session = MockURLSession()
    session.enqueue(.json(raw: #"{"id": 1, "name": "Ada"}"#))
    let service = UserService(session: session)

    let user = try await service.user(id: 1)

    #expect(user.name == "Ada")
    #expect(session.lastURL?.absoluteString == "https://api.example.com/v2/users/1")
}

@Test func keepsTheServersErrorBody() throws {
    let session = MockURLSession()
    session.enqueue(.text("no such user", status: 404))
    let recorder = CompletionRecorder<Result<HTTPClient.Response, HTTPClientError>>()

    let client = HTTPClient(session: session)
    client.get(url: try #require(URL(string: "https://api.example.com/users/9")), completion: recorder.record)

    guard case .failure(let error) = try #require(recorder.value) else {
        Issue.record("expected a failure")
        return
    }
    #expect(error.response?.statusCode == 404)
    #expect(error.response?.text == "no such user")
    #expect(recorder.callCount == 1)
}

@Test func retriesAfterAServerError() async throws {
    let session = MockURLSession()
    session.enqueue(.status(503), .json(raw: #"{"id": 2, "name": "Bo"}"#))
    let service = UserService(session: session)

    await #expect(throws: HTTPClientError.self) { try await service.user(id: 2) }
    #expect(try await service.user(id: 2).name == "Bo")
    #expect(session.requests.count == 2)
}

@Test func loadsTheProfileFromAStub() async throws {
    let stubs = StubRegistry()
    let profile = stubs.stub(.get, "/v2/users/{id}")
        .respond(.json(raw: #"{"id": 1, "name": "Ada"}"#))
    let service = UserService(session: MockURLSession(stubs: stubs))

    let user = try await service.user(id: 1)

    #expect(user.name == "Ada")
    stubs.verify(profile, requested: .once)
    #expect(profile.calls.first?.pathParameters["id"] == "1")
    stubs.verify()  // no unmatched requests, no unused stubs
}

@Test func failsTwiceThenSucceeds() async throws {
    let stubs = StubRegistry()
    stubs.stub(.get, "/v2/users/2")
        .respond(.status(503), .status(503), .json(raw: #"{"id": 2, "name": "Bo"}"#))
    let service = UserService(session: MockURLSession(stubs: stubs))

    for _ in 1...2 {
        await #expect(throws: HTTPClientError.self) { try await service.user(id: 2) }
    }
    #expect(try await service.user(id: 2).name == "Bo")
}

@Test func stubsARealURLSession() async throws {
    let stubs = StubRegistry()
    stubs.stub(.post, "https://api.example.com/v2/events")
        .matching(.jsonBody(containing: ["type": "login"]))
        .respond(.status(202).delayed(by: 0.05))
    let session: URLSession = stubs.makeURLSession()  // a real URLSession

    let client = HTTPClient(session: session)
    let response = try await client.post(
        try #require(URL(string: "https://api.example.com/v2/events")),
        json: ["type": "login", "user": "ada"])

    #expect(response.statusCode == 202)
}
