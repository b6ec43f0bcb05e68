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
        try await client.send(.get("users/\(id)")).value
    }
}

@Test func asksForTheUser() async throws {
    let session = MockURLSession()
    session.enqueue(.json(raw: #"{"id": 1, "name": "Ada"}"#))
    let service = UserService(session: session)

    let user = try await service.user(id: 1)

    #expect(user.name == "Ada")
    #expect(session.lastURL?.absoluteString == "https://api.example.com/v2/users/1")
}

@Test(.cassette()) func fetchesTheUser() async throws {
    let service = UserService(session: try CassetteSession.current)  // replays Cassettes/fetchesTheUser.json

    let user = try await service.user(id: 1)

    #expect(user.name == "Ada")
}

@Test(.cassette(), arguments: [1, 2])
func fetchesEachUser(id: Int) async throws {
    let service = UserService(session: try CassetteSession.current(case: id))  // Cassettes/fetchesEachUser(id_)/1.json, ...

    let user = try await service.user(id: id)

    #expect(user.id == id)
}

/// The test of GettingStarted.md, which answers in code.
@Suite struct GettingStartedExamples {
    @Test func fetchesTheUser() async throws {
        let session = MockURLSession()
        session.enqueue(.json(raw: #"{"id": 1, "name": "Ada"}"#))
        let service = UserService(session: session)

        let user = try await service.user(id: 1)

        #expect(user.name == "Ada")
        #expect(session.lastURL?.absoluteString == "https://api.example.com/v2/users/1")
    }
}

@Test func keepsTheServersErrorBody() throws {
    let session = MockURLSession()
    session.enqueue(.text("no such user", status: 404))
    let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()

    let client = HTTPClient(session: session)
    client.get(url: try #require(URL(string: "https://api.example.com/users/9")), completion: recorder.record)

    guard case .failure(let error) = try #require(recorder.value) else {
        Issue.record("expected a failure")
        return
    }
    #expect(error.response?.statusCode == 404)
    #expect(error.response?.text == "no such user")
    #expect(recorder.allValues.count == 1)
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
    stubs.verify(profile, requested: .exactly(1))
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

@Test func theCartIsEmptyUntilAnItemIsAdded() async throws {
    let stubs = StubRegistry()
    let cart = stubs.scenario("cart")
    stubs.stub(.get, "/v2/cart").inScenario(cart, when: .started).respond(.json(raw: "[]"))
    stubs.stub(.post, "/v2/cart").inScenario(cart, when: .started, movingTo: "has items").respond(.status(201))
    stubs.stub(.get, "/v2/cart").inScenario(cart, when: "has items").respond(.json(raw: #"["pen"]"#))
    let client = HTTPClient(session: MockURLSession(stubs: stubs), baseURL: URL(string: "https://api.example.com/v2"))

    #expect(try await client.get("cart").text == "[]")
    #expect(try await client.post("cart", body: Data("pen".utf8)).statusCode == 201)
    #expect(try await client.get("cart").text == #"["pen"]"#)
    #expect(cart.state == "has items")

    cart.state = .started  // as stubs.resetScenarios() would
    #expect(try await client.get("cart").text == "[]")
}

@Test func stubsARealURLSession() async throws {
    let stubs = StubRegistry()
    stubs.stub(.post, "https://api.example.com/v2/events")
        .matching(.jsonBody(containing: ["type": "login"]))
        .respond(.status(202).delayed(by: 0.05))
    let session: URLSession = stubs.makeURLSession()  // a real URLSession

    let client = HTTPClient(session: session)
    let response = try await client.send(
        .post(
            try #require(URL(string: "https://api.example.com/v2/events")),
            body: .json(["type": "login", "user": "ada"])))

    #expect(response.statusCode == 202)
}

@Test func refreshesAnExpiredTokenOnce() async throws {
    let stubs = StubRegistry()
    stubs.stub(.get, "/v2/me").respond(.status(401))
    stubs.stub(.get, "/v2/me").matching(.header("Authorization", "Bearer new-token"))
        .respond(.json(raw: #"{"id": 1, "name": "Ada"}"#))

    let auth = BearerTokenInterceptor(token: "old-token") {
        "new-token"  // in the app: try await authAPI.refreshToken()
    }
    let client = HTTPClient(
        session: MockURLSession(stubs: stubs),
        baseURL: URL(string: "https://api.example.com/v2"),
        interceptors: [auth])

    let me = try await client.send(HTTPClient.Request<User>.get("me")).value

    #expect(me.name == "Ada")
    #expect(stubs.requests.map { $0.headers["Authorization"] } == ["Bearer old-token", "Bearer new-token"])
}

struct RequestID: Interceptor {
    func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest {
        var request = request
        request.setValue(UUID().uuidString, forHTTPHeaderField: "X-Request-ID")
        return request
    }
}

@Test func retriesWithoutWaiting() async throws {
    let session = MockURLSession()
    session.enqueue(.status(503), .status(503, headers: ["Retry-After": "2"]), .text("ok"))
    let scheduler = ImmediateScheduler()
    let client = HTTPClient(session: session, retryPolicy: RetryPolicy(jitter: 0), scheduler: scheduler)

    let response = try await client.get(try #require(URL(string: "https://api.example.com/health")))

    #expect(response.text == "ok")
    #expect(scheduler.delays == [0.5, 2])  // the backoff, then the server's Retry-After
}

@Test func uploadsAFormAndAPhoto() async throws {
    let session = MockURLSession()
    let client = HTTPClient(session: session, baseURL: URL(string: "https://api.example.com"))

    _ = try await client.send(.post("login", body: .form(["user": "ada", "password": "p@ss word"])))

    var form = MultipartForm()
    form.addField(name: "caption", value: "Beach")
    form.addFile(name: "photo", fileName: "beach.jpg", contentType: "image/jpeg", data: Data([0xFF, 0xD8]))
    _ = try await client.send(.post("photos", body: .multipart(form)))

    #expect(session.requests[0].body == Data("password=p%40ss%20word&user=ada".utf8))
    #expect(session.requests[1].headers["Content-Type"] == form.contentType)
}

@Test func logsEveryAttempt() async throws {
    let log = CompletionRecorder<HTTPClientEvent>()
    let client = HTTPClient(session: MockURLSession(), headers: ["Authorization": "Bearer s3cret"], onEvent: log.record)

    _ = try await client.get(try #require(URL(string: "https://api.example.com/v2/me")))

    // GET https://api.example.com/v2/me -> 200 in 0 ms (attempt 1)
    #expect(log.value?.statusCode == 200)
    #expect(log.value?.requestHeaders["Authorization"] == "REDACTED")
}

@Test func servesAFixtureFolder() async throws {
    let stubs = StubRegistry()
    stubs.serve(try FixtureFolder(bundle: .module, subdirectory: "Fixtures"))
    let client = HTTPClient(session: MockURLSession(stubs: stubs))

    let response = try await client.get(try #require(URL(string: "https://api.example.com/bundled")))

    #expect(response.statusCode == 200)
}

@Test func replaysACassette() async throws {
    let file = try #require(Bundle.module.url(forResource: "users", withExtension: "json", subdirectory: "Cassettes"))
    let session = try CassetteSession(file: file, mode: .none, redaction: .standard.secret("my-api-token"))
    let client = HTTPClient(session: session, headers: ["Authorization": "Bearer my-api-token"])

    let url = try #require(URL(string: "https://api.example.com/users/1?api_key=my-api-key"))
    let user = try await client.send(HTTPClient.Request<User>.get(url)).value

    #expect(user.name == "Ada Lovelace")
    #expect(session.stubs.requests.count == 1)
}

func makeAppClient() throws -> HTTPClient {
    // HTTPCLIENT_FIXTURES or HTTPCLIENT_CASSETTE in the launch environment: canned answers.
    // Neither: URLSession.shared.
    HTTPClient(session: try StubEnvironment.session(), baseURL: URL(string: "https://api.example.com"))
}

@Test func theAppClientUsesTheRealSessionByDefault() throws {
    #expect(try makeAppClient().session is URLSession)
}

struct ProfileLoader {
    func name() async throws -> String {
        let session = MockURLSession(stubs: .current)  // deep inside the code under test
        return try await HTTPClient(session: session).get("https://api.example.com/me").text ?? ""
    }
}

@Test(.stubs) func loadsTheProfileName() async throws {
    let stubs = try #require(StubRegistry.current)
    stubs.stub(.get, "https://api.example.com/me").respond(.text("Ada"))

    #expect(try await ProfileLoader().name() == "Ada")
}

@Test func signingInFollowsTheRedirectWithItsCookie() async throws {
    let stubs = StubRegistry()
    let signIn = HeldResponse()
    stubs.stub(.post, "https://api.example.com/login")
        .respond(.status(303, headers: ["Location": "/me", "Set-Cookie": "sid=42; Path=/"]).held(by: signIn))
    stubs.stub(.get, "https://api.example.com/me").matching(.header("Cookie", "sid=42")).respond(.text("Ada"))
    let session: any URLSessionProtocol = MockURLSession(stubs: stubs)  // or stubs.makeURLSession()

    var login = URLRequest(url: try #require(URL(string: "https://api.example.com/login")))
    login.httpMethod = "POST"
    let signingIn = Task { try await session.upload(for: login, from: Data("user=ada".utf8)) }
    try await signIn.waitUntilHolding(timeout: .seconds(600))  // in flight: assert the spinner here
    signIn.release()

    let (body, response) = try await signingIn.value
    #expect(String(decoding: body, as: UTF8.self) == "Ada")
    #expect(response.url?.path == "/me")
    stubs.verify()  // also reports a request still held
}

@Test func showsTheAnswerTokenByToken() async throws {
    let stubs = StubRegistry()
    stubs.stub(.get, "https://api.example.com/chat").respond(
        .serverSentEvents([
            ServerSentEvent(type: "token", data: "Hel"), ServerSentEvent(type: "token", data: "lo"),
            ServerSentEvent(type: "done", data: ""),
        ]))
    let client = HTTPClient(session: MockURLSession(stubs: stubs))

    var shown = ""
    for try await event in try await client.stream(.get("https://api.example.com/chat")).chunks.serverSentEvents()
    where event.type == "token" {
        shown += event.data
    }
    #expect(shown == "Hello")
}
