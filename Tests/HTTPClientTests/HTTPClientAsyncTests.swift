import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient

@Suite("HTTPClient async API")
struct HTTPClientAsyncTests {
    let session = MockURLSession()
    var client: HTTPClient { HTTPClient(session: session) }

    @Test func getReturnsTheResponse() async throws {
        session.enqueue(.text("pong", headers: ["ETag": "v1"]))
        let response = try await client.get(url("https://example.com/ping"))
        #expect(response.statusCode == 200)
        #expect(response.text == "pong")
        #expect(response.headers["etag"] == "v1")
        #expect(response.url == url("https://example.com/ping"))
    }

    @Test func everyVerbSendsItsMethod() async throws {
        let target = url("https://example.com/r")
        _ = try await client.post(target, body: Data("a".utf8))
        _ = try await client.send(.put(target, body: .data(Data("b".utf8))))
        _ = try await client.send(.patch(target, body: .data(Data("c".utf8))))
        _ = try await client.send(.delete(target))
        _ = try await client.send(.head(target))
        _ = try await client.send(.post(target, body: .json(User(id: 1, name: "Ada"))))
        _ = try await client.send(.put(target, body: .json(User(id: 2, name: "Bo"))))
        _ = try await client.send(.patch(target, body: .json(User(id: 3, name: "Cy"))))
        #expect(session.requests.map(\.method) == ["POST", "PUT", "PATCH", "DELETE", "HEAD", "POST", "PUT", "PATCH"])
        #expect(session.requests.map(\.urlRequest.httpBody?.count) == [1, 1, 1, nil, nil, 21, 20, 20])
    }

    @Test func everyVerbTakesAPathOrAURLTheSameWayInBothStyles() async throws {
        let client = HTTPClient(session: session, baseURL: url("https://api.example.com/v2"))
        _ = try await client.get("users/1")
        _ = try await client.get(url("https://other.example.com/x"))
        _ = try await client.send(.delete("users/1", headers: ["X-Reason": "test"]))
        _ = try await client.send(.post("users", body: .json(User(id: 4, name: "Di"))))
        client.get(url: "users/2") { _ in }
        client.post(url: "users", body: Data("raw".utf8)) { _ in }
        client.send(.put("users/3", body: .json(User(id: 3, name: "Cy")))) { _ in }
        client.send(.head(url("https://other.example.com/y"))) { _ in }

        #expect(
            session.requests.map(\.url.absoluteString) == [
                "https://api.example.com/v2/users/1", "https://other.example.com/x", "https://api.example.com/v2/users/1",
                "https://api.example.com/v2/users", "https://api.example.com/v2/users/2", "https://api.example.com/v2/users",
                "https://api.example.com/v2/users/3", "https://other.example.com/y",
            ])
        #expect(session.requests.map(\.method) == ["GET", "GET", "DELETE", "POST", "GET", "POST", "PUT", "HEAD"])
        #expect(session.requests[2].headers["X-Reason"] == "test")
        #expect(session.requests.map(\.urlRequest.httpBody?.count) == [nil, nil, nil, 20, nil, 3, 20, nil])
    }

    @Test func requestHasAShorthandForEveryMethod() {
        let requests: [HTTPClient.Request<Data>] = [
            .get("a"), .head("a"), .delete("a"), .options("a"),
            .post("a", body: .text("x")), .put("a", body: .text("x")), .patch("a", body: .text("x")),
        ]
        #expect(requests.map(\.method) == [.get, .head, .delete, .options, .post, .put, .patch])
        #expect(requests.allSatisfy { $0.target == .path("a") })
        #expect(HTTPClient.Request<Data>.get(url("https://h/x")).target == .url(url("https://h/x")))
    }

    @Test func unacceptableStatusThrowsAndKeepsTheWholeResponse() async throws {
        session.enqueue(.json(raw: #"{"message":"slow down"}"#, status: 429, headers: ["Retry-After": "3"]))
        do {
            _ = try await client.get(url("https://example.com/busy"))
            Issue.record("expected a throw")
        } catch .unacceptableStatus(let response) {
            #expect(response.statusCode == 429)
            #expect(response.headers["retry-after"] == "3")
            #expect(response.text == #"{"message":"slow down"}"#)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func errorMessageSaysStatusURLAndBody() async {
        session.enqueue(.text("not here", status: 404))
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.get(url("https://example.com/missing"))
        }
        #expect(error?.description == "HTTP 404 from https://example.com/missing: not here")
    }

    @Test func jsonBodyIsEncodedWithContentType() async throws {
        _ = try await client.send(.post(url("https://example.com/users"), body: .json(User(id: 1, name: "Ada"))))
        let request = try #require(session.requests.last?.urlRequest)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(try JSONDecoder().decode(User.self, from: #require(request.httpBody)) == User(id: 1, name: "Ada"))
    }

    @Test func explicitContentTypeIsNotOverwritten() async throws {
        _ = try await client.send(
            .post(
                url("https://example.com/u"), body: .json(User(id: 1, name: "A")),
                headers: ["Content-Type": "application/vnd.api+json"]))
        #expect(session.requests.last?.headers["Content-Type"] == "application/vnd.api+json")
    }

    @Test func decodesWithTheClientsDecoder() async throws {
        session.enqueue(.json(raw: #"{"user_id": 5, "full_name": "Ada"}"#))
        struct Account: Decodable, Sendable, Equatable {
            let userId: Int
            let fullName: String
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let client = HTTPClient(session: session, decoder: decoder)
        #expect(
            try await client.send(HTTPClient.Request<Account>.get(url("https://example.com/me"))).value
                == Account(userId: 5, fullName: "Ada"))
    }

    @Test func postJSONDecodesTheAnswer() async throws {
        session.enqueue(.json(raw: #"{"id": 9, "name": "Ada"}"#, status: 201))
        let created = try await client.send(HTTPClient.Request<User>.post(url("https://example.com/users"), body: .json(["name": "Ada"])))
            .value
        #expect(created == User(id: 9, name: "Ada"))
    }

    @Test func encoderIsConfigurable() async throws {
        struct Payload: Encodable, Sendable { let firstName: String }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        _ = try await HTTPClient(session: session, encoder: encoder).send(
            .post(url("https://example.com/"), body: .json(Payload(firstName: "A"))))
        #expect(session.requests.last?.body == Data(#"{"first_name":"A"}"#.utf8))
    }

    @Test func encodingFailureIsTypedAndSendsNothing() async {
        struct Unencodable: Encodable, Sendable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "refused"))
            }
        }
        await #expect {
            try await client.send(.post(url("https://example.com/"), body: .json(Unencodable())))
        } throws: { error in
            guard case .encodingFailed(let type, _) = error as? HTTPClientError else { return false }
            return type == "Unencodable"
        }
        #expect(session.requests.isEmpty)
    }

    @Test func emptyBodyWhenAValueWasExpectedIsADecodingError() async {
        session.enqueue(.status(200))
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPClient.Request<User>.get(url("https://example.com/users/1"))).value
        }
        guard case .decodingFailed(let type, let response, let underlying) = error else {
            Issue.record("expected decodingFailed, got \(String(describing: error))")
            return
        }
        #expect(type == "User")
        #expect(response.statusCode == 200)
        #expect(underlying is EmptyBodyError)
    }

    @Test func invalidJSONIsADecodingErrorThatNamesThePath() async {
        session.enqueue(.json(raw: #"{"id": "one", "name": "Ada"}"#))
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPClient.Request<User>.get(url("https://example.com/users/1"))).value
        }
        #expect(error?.response?.text == #"{"id": "one", "name": "Ada"}"#)
        #expect(error?.description.contains("Could not decode User") == true)
        #expect(error?.description.contains("at id") == true)
    }

    @Test func aDecodingFailuresDescriptionEndsItsReasonWithOneFullStopBeforeTheBody() async {
        session.enqueue(.json(raw: "not json"))
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPClient.Request<User>.get(url("https://example.com/users/1"))).value
        }
        let description = error?.description ?? ""
        #expect(description.contains("Body: not json"))
        #expect(!description.contains(".."))
    }

    @Test func truncatedJSONIsADecodingError() async {
        session.enqueue(.json(raw: #"{"id": 1, "na"#))
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPClient.Request<User>.get(url("https://example.com/users/1"))).value
        }
        guard case .decodingFailed = error else {
            Issue.record("expected decodingFailed, got \(String(describing: error))")
            return
        }
    }

    @Test func transportErrorsThrowTheURLError() async {
        session.enqueue(.error(URLError(.networkConnectionLost)))
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.get(url("https://example.com/"))
        }
        #expect(error?.urlError?.code == .networkConnectionLost)
    }

    @Test func malformedURLStringThrowsInvalidURL() async {
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(.get("https://exa mple.com/a b"))
        }
        guard case .invalidURL(let given, _) = error else {
            Issue.record("expected invalidURL, got \(String(describing: error))")
            return
        }
        #expect(given == "https://exa mple.com/a b")
    }

    @Test func urlWithoutHostThrowsInvalidURL() async {
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(.get("https://"))
        }
        #expect(error?.description == #"Invalid URL "https://": it has no host."#)
    }

    @Test func cancellingTheSwiftTaskCancelsTheDataTask() async throws {
        let pending = PendingSession()
        let client = HTTPClient(session: pending)
        let call = Task { try await client.get(url("https://example.com/slow")) }
        var tasks = pending.tasks.makeAsyncIterator()
        let dataTask = try #require(await tasks.next())

        call.cancel()

        let result = await call.result
        #expect((result.failure as? HTTPClientError)?.isCancelled == true)
        #expect(dataTask.cancelCount.current == 1)
    }

    @Test func alreadyCancelledTaskSendsNothing() async {
        let session = self.session
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await HTTPClient(session: session).get(url("https://example.com/"))
        }
        let result = await call.result
        #expect((result.failure as? HTTPClientError)?.isCancelled == true)
        #expect(session.requests.isEmpty)
    }
}
