import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// Endpoints declared once, sent from anywhere.
private enum API {
    static let me = HTTPClient.Request<User>.get("me")
    static func user(_ id: Int) -> HTTPClient.Request<User> { .get("users/\(id)") }
}

@Suite("Typed requests and responses")
struct TypedRequestTests {
    let session = MockURLSession()
    var client: HTTPClient { HTTPClient(session: session, baseURL: url("https://api.example.com")) }

    @Test func oneCallGivesTheDecodedValueAndTheStatus() async throws {
        session.enqueue(.json(raw: #"{"id": 1, "name": "Ada"}"#, status: 201, headers: ["ETag": "v1"]))
        let response = try await client.send(API.me)
        #expect(response.value == User(id: 1, name: "Ada"))
        #expect(response.statusCode == 201)
        #expect(response.headers["etag"] == "v1")
        #expect(response.text == #"{"id": 1, "name": "Ada"}"#)
    }

    @Test func anEndpointDeclaredOnceIsSentToItsPath() async throws {
        session.enqueue(.json(raw: #"{"id": 7, "name": "Bo"}"#))
        let user = try await client.send(API.user(7)).value
        #expect(user == User(id: 7, name: "Bo"))
        #expect(session.lastURL?.absoluteString == "https://api.example.com/users/7")
    }

    @Test func theTypeOfTheValueCanComeFromTheContext() async throws {
        session.enqueue(.json(raw: #"{"id": 2, "name": "Cy"}"#))
        let user: User = try await client.send(.get("users/2")).value
        #expect(user == User(id: 2, name: "Cy"))
    }

    /// Retries follow the method as sent: `configure` turning a GET into a POST makes it a
    /// request that must not be sent twice.
    @Test func aGetThatConfigureTurnsIntoAPostIsNotRetried() async throws {
        session.enqueue(.status(503), .status(503), .text("ok"))
        var client = self.client
        client.retryPolicy = RetryPolicy(maximumAttempts: 3)
        client.scheduler = ImmediateScheduler()
        var request = HTTPClient.Request<Data>.get("charge")
        request.configure = { $0.httpMethod = "POST" }
        let error = await #expect(throws: HTTPClientError.self) { try await client.send(request) }
        #expect(error?.response?.statusCode == 503)
        #expect(session.requests.map(\.method.rawValue) == ["POST"])
    }

    @Test func aConfigureClosureThatRemovesTheURLFailsBeforeAnythingIsSent() async throws {
        var request = HTTPClient.Request<Data>.get("me")
        request.configure = { $0.url = nil }
        let error = await #expect(throws: HTTPClientError.self) { try await client.send(request) }
        guard case .invalidURL(let url, let reason)? = error else {
            Issue.record("expected invalidURL, got \(String(describing: error))")
            return
        }
        #expect(url == "https://api.example.com/me")
        #expect(reason.contains("configure"))
        #expect(session.requests.isEmpty)
    }

    /// A redirect can carry the request's token into the URL the answer came from: the
    /// response's and the error's descriptions hide it there too, as they do in the body.
    @Test func aTokenARedirectPutsInTheURLIsHiddenWhereverTheResponseIsPrinted() async throws {
        let token = "s3cr3t-redirected-token"
        let stubs = StubRegistry()
        stubs.stub(.get, "/start").respond(.status(302, headers: ["Location": "/gone/\(token)?next=\(token)"]))
        stubs.stub(where: .path(.prefix("/gone/"))).respond(.text("missing", status: 404, headers: ["X-Echo": token]))
        let client = HTTPClient(
            session: MockURLSession(stubs: stubs), baseURL: url("https://api.example.com"), headers: ["Authorization": "Bearer \(token)"])
        let error = await #expect(throws: HTTPClientError.self) { try await client.send(.get("start")) }
        let response = try #require(error?.response)
        #expect(response.url?.absoluteString.contains(token) == true)  // the redirect did carry it
        var dumped = ""
        dump(response, to: &dumped)
        for printed in [error?.description ?? "", response.description, response.debugDescription, dumped] {
            #expect(!printed.contains(token), "\(printed)")
        }
    }

    @Test func aRawRequestsValueIsTheBodyAsItCame() async throws {
        session.enqueue(.text("plain"))
        let response = try await client.send(.get("notes"))
        #expect(response.value == Data("plain".utf8))
        #expect(session.requests.last?.headers["Accept"] == nil)
    }

    @Test func aTypedRequestAsksForJSON() async throws {
        session.enqueue(.json(raw: #"{"id": 1, "name": "Ada"}"#))
        _ = try await client.send(API.me)
        #expect(session.requests.last?.headers["Accept"] == "application/json")
    }

    @Test func theCompletionStyleGivesTheSameTypedResponse() throws {
        session.enqueue(.json(raw: #"{"id": 3, "name": "Di"}"#, status: 202))
        let recorder = CompletionRecorder<Result<HTTPClient.Response<User>, HTTPClientError>>()
        client.send(API.user(3), completion: recorder.record)
        let response = try #require(recorder.value).get()
        #expect(response.value == User(id: 3, name: "Di"))
        #expect(response.statusCode == 202)
    }

    @Test func theResponseCarriesTheRequestAsSentAfterInterceptors() async throws {
        session.enqueue(.json(raw: #"{"id": 1, "name": "Ada"}"#))
        let client = HTTPClient(
            session: session, baseURL: url("https://api.example.com"), headers: ["X-App": "demo"],
            interceptors: [AddHeader(name: "X-Step", value: "1")])
        let response = try await client.send(API.me)
        let sent = try #require(response.request)
        #expect(sent.url?.absoluteString == "https://api.example.com/me")
        #expect(sent.value(forHTTPHeaderField: "X-App") == "demo")
        #expect(sent.value(forHTTPHeaderField: "X-Step") == "1")
    }

    @Test func anErrorsResponseCarriesTheRequestSent() async throws {
        session.enqueue(.status(500))
        let error = await #expect(throws: HTTPClientError.self) { try await client.send(API.me) }
        #expect(error?.response?.request?.url?.absoluteString == "https://api.example.com/me")
    }

    @Test func printingAResponseHidesTheCredentialsOfTheRequestSent() async throws {
        session.enqueue(.text("ok"))
        let client = HTTPClient(session: session, headers: ["Authorization": "Bearer s3cr3t-t0ken"])
        let response = try await client.get(url("https://ada:pa55word@api.example.com/me?api_key=k3y-value"))
        let printed = [
            response.description, response.debugDescription, String(describing: response), String(reflecting: response),
            {
                var text = ""
                dump(response, to: &text)
                return text
            }(),
        ]
        for text in printed {
            #expect(!text.contains("s3cr3t-t0ken"), "\(text)")
            #expect(!text.contains("pa55word"), "\(text)")
            #expect(!text.contains("k3y-value"), "\(text)")
        }
        #expect(response.request?.value(forHTTPHeaderField: "Authorization") == "Bearer s3cr3t-t0ken")
    }

    @Test func aTypedRequestThatGetsAnEmptyBodyFailsToDecode() async throws {
        session.enqueue(.status(204))
        let error = await #expect(throws: HTTPClientError.self) { try await client.send(API.me) }
        guard case .decodingFailed(let type, let response, let underlying) = error else {
            Issue.record("expected decodingFailed, got \(String(describing: error))")
            return
        }
        #expect(type == "User")
        #expect(response.statusCode == 204)
        #expect(underlying is EmptyBodyError)
    }

    @Test func theConfigurationClosureAdjustsTheURLRequest() async throws {
        var request = HTTPClient.Request<Data>.get("feed")
        request.configure = { urlRequest in
            urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
            urlRequest.timeoutInterval = 7
            urlRequest.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
        }
        _ = try await client.send(request)
        let sent = try #require(session.requests.last?.urlRequest)
        #expect(sent.cachePolicy == .reloadIgnoringLocalCacheData)
        #expect(sent.timeoutInterval == 7)
        #expect(sent.value(forHTTPHeaderField: "Cache-Control") == "no-cache")
    }

    @Test func theConfigurationClosureRunsBeforeTheInterceptors() async throws {
        let client = HTTPClient(session: session, interceptors: [AddHeader(name: "X-Step", value: "interceptor")])
        var request = HTTPClient.Request<Data>.get(url("https://h/x"))
        request.configure = { $0.setValue("configure", forHTTPHeaderField: "X-Step") }
        _ = try await client.send(request)
        #expect(session.requests.last?.headers["X-Step"] == "configure,interceptor")
    }

    @Test func hundredsOfTypedRequestsAtOnceEachGetTheirOwnValue() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/users/{id}").respond(
            .computed { request in
                let id = request.pathParameters["id"] ?? ""
                return .json(raw: #"{"id": \#(id), "name": "user \#(id)"}"#)
            })
        let client = HTTPClient(
            session: MockURLSession(stubs: stubs), baseURL: url("https://api.example.com"),
            interceptors: [AddHeader(name: "X-Step", value: "1")])
        let users = try await withThrowingTaskGroup(of: User.self) { group in
            for id in 0..<300 { group.addTask { try await client.send(API.user(id)).value } }
            return try await group.reduce(into: [User]()) { $0.append($1) }
        }
        #expect(Set(users.map(\.id)) == Set(0..<300))
        #expect(users.allSatisfy { $0.name == "user \($0.id)" })
    }

    @Test func cancellingATypedRequestHalfwayIsCancelledNotADecodingFailure() async throws {
        let pending = PendingSession()
        let client = HTTPClient(session: pending, baseURL: url("https://api.example.com"))
        let call = Task { try await client.send(API.me) }
        var tasks = pending.tasks.makeAsyncIterator()
        let started = try #require(await tasks.next())
        call.cancel()
        let result = await call.result
        #expect((result.failure as? HTTPClientError)?.isCancelled == true)
        #expect(started.cancelCount.current == 1)
    }

    @Test func anUploadReturnsATypedResponse() async throws {
        session.enqueue(.json(raw: #"{"id": 4, "name": "Ed"}"#, status: 201))
        let response = try await client.upload(HTTPClient.Request<User>.post("users"), from: .data(Data("x".utf8)))
        #expect(response.value == User(id: 4, name: "Ed"))
        #expect(response.statusCode == 201)
    }
}

@Suite("Credentials echoed in an error body")
struct EchoedCredentialTests {
    let session = MockURLSession()

    @Test func aBearerTokenFromTheAuthorizationHeaderIsHiddenInTheErrorDescription() async throws {
        session.enqueue(.text("token s3cr3t-t0ken-value is expired", status: 401))
        let client = HTTPClient(session: session, headers: ["Authorization": "Bearer s3cr3t-t0ken-value"])
        let error = await #expect(throws: HTTPClientError.self) { try await client.get(url("https://api.example.com/me")) }
        let description = try #require(error?.description)
        #expect(!description.contains("s3cr3t-t0ken-value"), "\(description)")
        #expect(description.contains("is expired"))
    }

    @Test func aTokenAddedByAnInterceptorIsHiddenInTheErrorDescription() async throws {
        session.enqueue(.json(raw: #"{"message": "bad credential s3cr3t-t0ken-value"}"#, status: 403))
        let auth = BearerTokenInterceptor(token: "s3cr3t-t0ken-value", refresh: { "s3cr3t-t0ken-value" })
        let client = HTTPClient(session: session, interceptors: [auth])
        let error = await #expect(throws: HTTPClientError.self) { try await client.get(url("https://api.example.com/me")) }
        #expect(error?.description.contains("s3cr3t-t0ken-value") == false, "\(String(describing: error))")
    }

    @Test func aDecodingFailureHidesTheEchoedTokenToo() async throws {
        session.enqueue(.text("<html>s3cr3t-t0ken-value</html>"))
        let client = HTTPClient(session: session, headers: ["Authorization": "Bearer s3cr3t-t0ken-value"])
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.send(HTTPClient.Request<User>.get(url("https://api.example.com/me")))
        }
        #expect(error?.description.contains("s3cr3t-t0ken-value") == false, "\(String(describing: error))")
    }
}
