import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient

/// What kean/Get's users rely on, each re-expressed with this package's API.
@Suite("Coming from Get")
struct ComingFromGetTests {
    let session = MockURLSession()
    var client: HTTPClient { HTTPClient(session: session, baseURL: url("https://api.example.com")) }

    // MARK: Accept

    @Test func aClientWideAcceptIsKeptByADecodingRequest() async throws {
        session.enqueue(.json(raw: #"{"id": 1, "name": "Ada"}"#))
        var client = self.client
        client.headers["Accept"] = "application/vnd.github+json"
        _ = try await client.send(HTTPClient.Request<User>.get("user"))
        #expect(session.requests.last?.headers["Accept"] == "application/vnd.github+json")
    }

    @Test func aRequestsOwnAcceptIsKeptByADecodingRequest() async throws {
        session.enqueue(.json(raw: #"{"id": 1, "name": "Ada"}"#))
        _ = try await client.send(HTTPClient.Request<User>.get("user", headers: ["accept": "application/vnd.github+json"]))
        #expect(session.requests.last?.headers["Accept"] == "application/vnd.github+json")
    }

    // MARK: Empty bodies

    @Test(arguments: [204, 200])
    func anEmptyBodyDecodesAsNilForAnOptionalType(status: Int) async throws {
        session.enqueue(.status(status))
        let response = try await client.send(HTTPClient.Request<User?>.get("user"))
        #expect(response.value == nil)
        #expect(response.statusCode == status)
    }

    @Test func aJSONNullStillDecodesAsNilAndABodyAsTheValue() async throws {
        session.enqueue(.json(raw: "null"), .json(raw: #"{"id": 1, "name": "Ada"}"#))
        #expect(try await client.send(HTTPClient.Request<User?>.get("user")).value == nil)
        #expect(try await client.send(HTTPClient.Request<User?>.get("user")).value == User(id: 1, name: "Ada"))
    }

    @Test func anEmptyBodyForANonOptionalTypeFailsWithEmptyBodyError() async throws {
        session.enqueue(.status(204))
        let error = await #expect(throws: HTTPClientError.self) { try await client.send(HTTPClient.Request<User>.get("user")) }
        guard case .decodingFailed(let type, let response, let underlying)? = error else {
            Issue.record("expected decodingFailed, got \(String(describing: error))")
            return
        }
        #expect(type == "User")
        #expect(response.statusCode == 204)
        #expect(underlying is EmptyBodyError)
    }

    // MARK: Nil optional bodies

    @Test func aNilOptionalJSONBodySendsNoBodyAndNoContentType() async throws {
        session.enqueue(.status(204))
        let user: User? = nil
        _ = try await client.send(.post("users", body: .json(user)))
        let sent = try #require(session.requests.last?.urlRequest)
        #expect(sent.httpBody == nil)
        #expect(sent.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test func aPresentOptionalJSONBodyIsEncoded() async throws {
        session.enqueue(.status(204))
        let user: User? = User(id: 1, name: "Ada")
        _ = try await client.send(.post("users", body: .json(user)))
        let sent = try #require(session.requests.last?.urlRequest)
        #expect(try JSONDecoder().decode(User.self, from: try #require(sent.httpBody)) == User(id: 1, name: "Ada"))
        #expect(sent.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    // MARK: Validation

    struct APIProblem: Error, Decodable, Equatable {
        let title: String
    }

    @Test func aValidationCanThrowTheAppsOwnErrorKeptAsTheCause() async throws {
        session.enqueue(.json(raw: #"{"title": "Name taken"}"#, status: 422))
        var client = self.client
        client.validation = HTTPClient.Validation { response in
            if response.statusCode == 422 { throw try response.decode(APIProblem.self) }
            return response.isSuccessful
        }
        let error = await #expect(throws: HTTPClientError.self) { try await client.send(.post("users", body: .text("x"))) }
        guard case .validationFailed(let response, let underlying as APIProblem)? = error else {
            Issue.record("expected validationFailed with an APIProblem, got \(String(describing: error))")
            return
        }
        #expect(underlying == APIProblem(title: "Name taken"))
        #expect(response.statusCode == 422)
        #expect(error?.underlyingError is APIProblem)
        #expect(error?.description.contains("Name taken") == true)
    }

    /// The retry policy goes by the status, whether the validation returned false or threw.
    @Test func aStatusTheValidationThrowsForIsRetriedLikeARejectedOne() async throws {
        struct Unavailable: Error {}
        session.enqueue(.status(503), .text("ok"))
        var client = self.client
        client.retryPolicy = RetryPolicy(maximumAttempts: 2)
        client.scheduler = ImmediateScheduler()
        client.validation = HTTPClient.Validation { response in
            if response.statusCode == 503 { throw Unavailable() }
            return true
        }
        #expect(try await client.send(.get("x")).text == "ok")
        #expect(session.requests.count == 2)
    }

    @Test func thePolicyRetriesARejectedStatusButNotAnUndecodableBody() {
        let policy = RetryPolicy(maximumAttempts: 2, jitter: 0)
        let response = HTTPClient.Response<Data>(statusCode: 503)
        struct Unavailable: Error {}
        let rejections: [HTTPClientError] = [
            .unacceptableStatus(response), .validationFailed(response: response, underlying: Unavailable()),
        ]
        for rejection in rejections {
            #expect(policy.delay(after: .failure(rejection), attempt: 1, isIdempotent: true, now: Date(), random: 0) != nil)
        }
        let undecodable = HTTPClientError.decodingFailed(type: "User", response: response, underlying: Unavailable())
        #expect(policy.delay(after: .failure(undecodable), attempt: 1, isIdempotent: true, now: Date(), random: 0) == nil)
    }

    @Test func aValidationThatReturnsFalseStillFailsWithUnacceptableStatus() async throws {
        session.enqueue(.status(200))
        let request = HTTPClient.Request<Data>(method: .get, url: "x", validation: HTTPClient.Validation { _ in false })
        let error = await #expect(throws: HTTPClientError.self) { try await client.send(request) }
        guard case .unacceptableStatus(let response)? = error else {
            Issue.record("expected unacceptableStatus, got \(String(describing: error))")
            return
        }
        #expect(response.statusCode == 200)
    }

    @Test func aStreamsValidationCanThrowTooAndKeepsTheBody() async throws {
        struct Teapot: Error {}
        session.enqueue(.text("short and stout", status: 418))
        var client = self.client
        client.validation = HTTPClient.Validation { response in
            if response.statusCode == 418 { throw Teapot() }
            return true
        }
        let error = await #expect(throws: HTTPClientError.self) { try await client.stream(.get("pot")) }
        guard case .validationFailed(let response, _ as Teapot)? = error else {
            Issue.record("expected validationFailed with Teapot, got \(String(describing: error))")
            return
        }
        #expect(response.text == "short and stout")
    }

    @Test func aDownloadsValidationCanThrowTooKeepingTheBodyAndWritingNothing() async throws {
        struct QuotaExceeded: Error {}
        session.enqueue(.text("quota exceeded", status: 403))
        var client = self.client
        client.validation = HTTPClient.Validation { response in
            if response.statusCode == 403 { throw QuotaExceeded() }
            return true
        }
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("coming-from-get-\(UUID().uuidString)")
        let error = await #expect(throws: HTTPClientError.self) { try await client.download(.get("report"), to: destination) }
        guard case .validationFailed(let response, _ as QuotaExceeded)? = error else {
            Issue.record("expected validationFailed with QuotaExceeded, got \(String(describing: error))")
            return
        }
        #expect(response.text == "quota exceeded")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    // MARK: Per-task delegate

    @Test func theRequestsDelegateIsGivenToItsURLSessionTask() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/me").respond(.text("ok"))
        let session = TaskRecordingSession(stubs.makeURLSession())
        let delegate = TaskDelegate()
        var request = HTTPClient.Request<Data>.get(url("https://api.example.com/me"))
        request.delegate = delegate
        #expect(try await HTTPClient(session: session).send(request).text == "ok")
        #expect(session.delegates.current.count == 1)
        #expect(session.delegates.current.first == ObjectIdentifier(delegate))
    }

    @Test func aRequestWithoutADelegateLeavesItsTaskWithout() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/me").respond(.text("ok"))
        let session = TaskRecordingSession(stubs.makeURLSession())
        _ = try await HTTPClient(session: session).send(.get(url("https://api.example.com/me")))
        #expect(session.delegates.current == [nil])
    }
}

/// A task delegate that does nothing: its identity is what the tests look for.
final class TaskDelegate: NSObject, URLSessionTaskDelegate {}

/// A `URLSession` that records, as each of its tasks completes, which delegate the task had.
final class TaskRecordingSession: URLSessionProtocol, Sendable {
    /// Holds the task for its own completion handler, which is made before the task is.
    private final class TaskBox: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: URLSessionTask?
        var task: URLSessionTask? {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
    }

    let base: URLSession
    let delegates = Locked<[ObjectIdentifier?]>([])

    init(_ base: URLSession) { self.base = base }

    func makeDataTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any URLSessionDataTaskProtocol {
        let box = TaskBox()
        let delegates = self.delegates
        // The real task goes back to the client, as a session wrapping another hands it back.
        let task = base.dataTask(with: request) { data, response, error in
            delegates.withLock { $0.append(box.task?.delegate.map { ObjectIdentifier($0) }) }
            completionHandler(data, response, error)
        }
        box.task = task
        return task
    }
}
