import Foundation
import HTTPClient
import HTTPClientMocks
@_spi(Engine) import HTTPClientStubs
import Testing

/// Mocker's own test suite (WeTransfer/Mocker: `MockerTests`, `DynamicMocksTests`,
/// `MockTests`; 28 tests), scenario by scenario, against this API on the URLProtocol transport
/// as Mocker runs them: 27 are expressed here (its default-mode check is part of
/// `byDefaultAnUnknownURLIsHandledNotSent`). Two of them Mocker skips on Linux (redirects, the
/// response cache); both run here. One differs by design and says how
/// (`aSpecificStubWinsOverAGenericOneWhenRegisteredAfterIt`). One has no counterpart: stubs have
/// identity, not value equality (`MockTests.testFileExtensionMocksComparing`).
@Suite("Mocker's test scenarios, on this API")
struct MockerScenarioTests {
    private let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])

    private func get(_ session: URLSession, _ url: String) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: URLRequest(url: testURL(url)))
        return (data, try #require(response as? HTTPURLResponse))
    }

    /// Files named `*.png`, whatever the host: Mocker's file-extension mocks.
    private static let pngFiles = RequestMatcher.custom("the path ends in .png") { $0.path.hasSuffix(".png") }

    // MARK: Answers

    @Test func anImageURLWithAQueryIsAnsweredWithTheStubbedBytes() async throws {
        let stubs = StubRegistry()
        let url = "https://avatars.example.com/u/26250426?v=4&s=400"
        stubs.stub(.get, "\(url)").respond(.status(200, headers: ["Content-Type": "image/png"], body: png))
        let (data, response) = try await get(stubs.makeURLSession(), url)
        #expect(data == png)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "image/png")
    }

    @Test func aStubForAFileExtensionAnswersEveryFileWithIt() async throws {
        let stubs = StubRegistry()
        stubs.stub(where: .method(.get) && Self.pngFiles).respond(.status(200, body: png))
        let (data, _) = try await get(stubs.makeURLSession(), "https://www.example.com/sample-image.png")
        #expect(data == png)
    }

    /// Differs by design: Mocker prefers a URL mock over an extension mock whatever the order;
    /// here the newest matching stub wins, so the specific one is registered after the generic.
    @Test func aSpecificStubWinsOverAGenericOneWhenRegisteredAfterIt() async throws {
        let stubs = StubRegistry()
        let generic = stubs.stub(where: .method(.get) && Self.pngFiles).respond(.status(400)).allowingUnused()
        stubs.stub(where: .method(.get) && .url("https://www.example.com/sample-image.png", ignoringQuery: true))
            .respond(.status(200, body: png))
        let (data, response) = try await get(stubs.makeURLSession(), "https://www.example.com/sample-image.png")
        #expect(response.statusCode == 200)
        #expect(data == png)
        #expect(generic.callCount == 0)
    }

    @Test func aStubIgnoringTheQueryAnswersAnyQuery() async throws {
        let stubs = StubRegistry()
        stubs.stub(where: .url("https://www.example.com/sample-image.png?width=200&height=200", ignoringQuery: true))
            .respond(.status(200, body: png))
        let (data, _) = try await get(
            stubs.makeURLSession(), "https://www.example.com/sample-image.png?width=200&height=200&\(UUID().uuidString)")
        #expect(data == png)
    }

    @Test func aStubbedJSONBodyDecodes() async throws {
        struct Framework: Decodable, Equatable {
            let name: String
            let owner: String
        }
        let stubs = StubRegistry()
        stubs.stub(.get, "https://www.example.com/example.json").respond(.json(raw: #"{"name": "Mocker", "owner": "WeTransfer"}"#))
        let (data, _) = try await get(stubs.makeURLSession(), "https://www.example.com/example.json")
        #expect(try JSONDecoder().decode(Framework.self, from: data) == Framework(name: "Mocker", owner: "WeTransfer"))
    }

    @Test func headersOfTheStubReachTheResponse() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://h/headers").respond(.status(200, headers: ["Testkey": "testvalue"]))
        let (_, response) = try await get(stubs.makeURLSession(), "https://h/headers")
        #expect(response.value(forHTTPHeaderField: "Testkey") == "testvalue")
    }

    @Test func aNewerStubForTheSameRequestOverridesTheOlder() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://h/mock").respond(.status(200, headers: ["Oldkey": "old"])).allowingUnused()
        stubs.stub(.get, "https://h/mock").respond(.status(200, headers: ["Newkey": "newvalue"]))
        let (_, response) = try await get(stubs.makeURLSession(), "https://h/mock")
        #expect(response.value(forHTTPHeaderField: "Newkey") == "newvalue")
        #expect(response.value(forHTTPHeaderField: "Oldkey") == nil)
    }

    @Test func aSessionOfYourOwnConfigurationIsStubbed() async throws {
        let stubs = StubRegistry()
        stubs.stub(where: Self.pngFiles).respond(.status(200, body: png))
        let configuration = URLSessionConfiguration.default
        stubs.install(in: configuration)
        let (data, _) = try await get(URLSession(configuration: configuration), "https://www.example.com/sample-image.png")
        #expect(data == png)
    }

    @Test func aStubbedErrorIsTheErrorTheCallerGets() async throws {
        enum ExampleError: Error, Equatable { case example }
        let stubs = StubRegistry()
        stubs.stub(.get, "https://www.example.com/example.json").respond(.error(ExampleError.example))
        let url = testURL("https://www.example.com/example.json")
        let (data, response, error) = await withCheckedContinuation { continuation in
            stubs.makeURLSession().dataTask(with: url) { continuation.resume(returning: ($0, $1, $2)) }.resume()
        }
        #expect(data == nil)
        #expect(response == nil)
        #expect(error as? ExampleError == .example)
    }

    // MARK: Timing and callbacks

    @Test func aDelayedAnswerCanBeCancelledWhileItWaits() async throws {
        let stubs = StubRegistry()
        // Longer than any run takes to cancel: the cancel never races the delay.
        let slow = stubs.stub(.get, "https://h/slow").respond(.status(200).delayed(by: 600))
        let session = stubs.makeURLSession()
        let load = Task { try await session.data(for: URLRequest(url: testURL("https://h/slow"))) }
        try await slow.waitForRequests(timeout: eventWait)
        load.cancel()
        let error = await #expect(throws: URLError.self) { try await load.value }
        #expect(error?.code == .cancelled)
    }

    @Test func aRequestCallbackComesBeforeTheDeliveryCallback() async throws {
        let stubs = StubRegistry()
        let events = Locked<[String]>([])
        let stub = stubs.stub(.get, "https://h/callbacks").respond(.status(200))
            .onRequest { _ in events.withLock { $0.append("request") } }
            .onDelivery { _ in events.withLock { $0.append("delivery") } }
        let task = stubs.makeURLSession().dataTask(with: testURL("https://h/callbacks"))
        task.resume()
        try await stub.waitForDeliveries(timeout: eventWait)
        #expect(events.current == ["request", "delivery"])
    }

    @Test func aRequestCanBeAwaitedWithoutACompletionHandler() async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "https://www.example.com/").respond(.status(200))
        stubs.makeURLSession().dataTask(with: testURL("https://www.example.com/")).resume()
        try await stub.waitForRequests(timeout: eventWait)
        #expect(stub.callCount == 1)
    }

    @Test func aDeliveryCanBeAwaitedWithoutACompletionHandler() async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "https://www.example.com/").respond(.status(200))
        stubs.makeURLSession().dataTask(with: testURL("https://www.example.com/")).resume()
        try await stub.waitForDeliveries(timeout: eventWait)
        #expect(stub.calls.map(\.path) == ["/"])
    }

    /// Mocker delays one mock by a second and expects the other first; a held response gives
    /// the same order without waiting on a clock.
    @Test func aHeldAnswerArrivesAfterOneThatIsNot() async throws {
        let stubs = StubRegistry()
        let gate = HeldResponse()
        let order = Locked<[String]>([])
        let delayed = stubs.stub(.get, "https://h/delayed").respond(.status(200).held(by: gate))
            .onDelivery { _ in order.withLock { $0.append("delayed") } }
        let prompt = stubs.stub(.post, "https://h/prompt").respond(.status(200))
            .onDelivery { _ in order.withLock { $0.append("prompt") } }
        let session = stubs.makeURLSession()
        session.dataTask(with: testURL("https://h/delayed")).resume()
        var post = URLRequest(url: testURL("https://h/prompt"))
        post.httpMethod = "POST"
        session.dataTask(with: post).resume()
        try await prompt.waitForDeliveries(timeout: eventWait)
        try await gate.waitUntilHolding(timeout: eventWait)
        gate.release()
        try await delayed.waitForDeliveries(timeout: eventWait)
        #expect(order.current == ["prompt", "delayed"])
    }

    // MARK: Request bodies

    @Test func thePostedJSONObjectIsRecordedAndMatchable() async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.post, "https://www.example.com/").matching(.jsonBody(["test": "value"])).respond(.status(200))
        var request = URLRequest(url: testURL("https://www.example.com/"))
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: ["test": "value"], options: .prettyPrinted)
        _ = try await stubs.makeURLSession().data(for: request)
        let body = try #require(stub.calls.first?.body)
        #expect(try JSONSerialization.jsonObject(with: body) as? [String: String] == ["test": "value"])
    }

    @Test func aPostedTopLevelJSONArrayIsRecordedAndMatchable() async throws {
        let stubs = StubRegistry()
        let expected = [["test": "value"], ["test": "value"]]
        let stub = stubs.stub(.post, "https://www.example.com/").matching(.jsonBody(expected)).respond(.status(200))
        var request = URLRequest(url: testURL("https://www.example.com/"))
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: expected, options: .prettyPrinted)
        _ = try await stubs.makeURLSession().data(for: request)
        let body = try #require(stub.calls.first?.body)
        #expect(try JSONSerialization.jsonObject(with: body) as? [[String: String]] == expected)
    }

    // MARK: The registry

    @Test func resetRemovesEveryStub() {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://h/a").respond(.status(200))
        stubs.reset()
        #expect(stubs.stubs.isEmpty)
    }

    @Test func stubsForOneURLWithDifferentMethodsAreKeptApart() {
        let stubs = StubRegistry()
        let url = "https://www.example.com/\(UUID().uuidString)"
        let get = stubs.stub(.get, "\(url)").respond(.status(200))
        let put = stubs.stub(.put, "\(url)").respond(.status(200))
        #expect(stubs.firstMatch(for: RecordedRequest(request("GET", url))) === get)
        #expect(stubs.firstMatch(for: RecordedRequest(request("PUT", url))) === put)
    }

    @Test func aURLComposedFromABaseMatchesTheSameAbsoluteURL() async throws {
        let composed = try #require(URL(string: "resource", relativeTo: URL(string: "https://host.example.com/api/")))
        #expect(composed.absoluteString == "https://host.example.com/api/resource")
        let stubs = StubRegistry()
        stubs.stub(.get, "\(composed.absoluteString)").respond(.text("resource"))
        let (data, _) = try await stubs.makeURLSession().data(for: URLRequest(url: composed))
        #expect(data == Data("resource".utf8))
    }

    // MARK: Pass-through (Mocker's ignore list and opt-in mode)

    @Test func anIgnoredURLPassesThroughAndOthersStayStubbed() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.passThrough(.url("https://www.example.com/"))
        #expect(Self.passesThrough(stubs, "https://www.example.com/"))
        #expect(!Self.passesThrough(stubs, "https://www.example.com/other"))
    }

    @Test func anIgnoredURLCanIgnoreTheQuery() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.passThrough(.url("https://www.example.com/sample-image.png", ignoringQuery: true))
        #expect(Self.passesThrough(stubs, "https://www.example.com/sample-image.png?width=200&height=200"))
    }

    /// Mocker's default `.optout` mode: stubbed URLs are answered, ignored ones pass, and any
    /// other is still handled (here: failed with a report, never sent).
    @Test func byDefaultAnUnknownURLIsHandledNotSent() {
        let failures = CollectedFailures()
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "https://www.example.org/").respond(.status(200))
        stubs.passThrough(.host("www.example.com"))
        #expect(stubs.status(for: request("GET", "https://www.example.org/")) == 200)
        #expect(Self.passesThrough(stubs, "https://www.example.com/"))
        guard case .unmatched = stubs.resolve(request("GET", "https://www.example.net/")) else {
            Issue.record("an unknown URL must be handled by the registry")
            return
        }
        #expect(failures.all.count == 1)
    }

    /// Mocker's `.optin` mode: only stubbed URLs are handled; everything else goes out.
    @Test func optingInLetsEveryUnstubbedURLThrough() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "https://www.example.org/").respond(.status(200))
        stubs.passThrough(.any)
        #expect(stubs.status(for: request("GET", "https://www.example.org/")) == 200)
        #expect(Self.passesThrough(stubs, "https://www.example.net/"))
        stubs.stopPassingThrough()
        #expect(!Self.passesThrough(stubs, "https://www.example.net/"))
    }

    private static func passesThrough(_ stubs: StubRegistry, _ url: String) -> Bool {
        if case .passthrough = stubs.resolve(request("GET", url), reportingMisses: false) { return true }
        return false
    }

    // MARK: What Mocker skips on Linux

    @Test func aRedirectIsFollowedToItsTarget() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://short.example/redirect").respond(.status(302, headers: ["Location": "https://www.example.com/redirect"]))
        stubs.stub(.get, "https://www.example.com/redirect").respond(.json(raw: #"{"name": "Mocker"}"#))
        let (data, response) = try await get(stubs.makeURLSession(), "https://short.example/redirect")
        #expect(data == Data(#"{"name": "Mocker"}"#.utf8))
        #expect(response.url?.absoluteString == "https://www.example.com/redirect")
    }

    @Test func aCacheableAnswerIsKeptInTheSessionsCache() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://www.example.com/example.json")
            .respond(.json(raw: #"{"name": "Mocker"}"#, headers: ["Cache-Control": "public, max-age=31557600, immutable"]).cached())
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
        _ = try await get(stubs.makeURLSession(configuration: configuration), "https://www.example.com/example.json")
        let cached = configuration.urlCache?.cachedResponse(for: URLRequest(url: testURL("https://www.example.com/example.json")))
        #expect(cached?.data == Data(#"{"name": "Mocker"}"#.utf8))
    }

    // MARK: DynamicMocksTests

    /// A profile call answered 401 until the app has refreshed its token: the stub answers by
    /// what the request carries, so the app's own retry is what the test exercises.
    @Test func aProfileIsFetchedAfterTheAppRefreshesItsToken() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "http://service.example/profile").respond(.status(401)).allowingUnused()
        stubs.stub(.get, "http://service.example/profile").matching(.header("Authorization", "Bearer good"))
            .respond(.json(raw: #"{"name": "Joe Jones"}"#))
        let refresh = stubs.stub(.get, "http://service.example/token/refresh").respond(.json(raw: #"{"token": "good"}"#))

        let name = try await ProfileService(session: stubs.makeURLSession()).profileName()

        #expect(name == "Joe Jones")
        stubs.verify(refresh, requested: .exactly(1))
    }
}

/// App code of the kind Mocker's dynamic-mock scenario tests: on 401 it refreshes its token once
/// and retries.
private final class ProfileService: Sendable {
    let session: URLSession
    let token = Locked("bad")

    init(session: URLSession) { self.session = session }

    func profileName(retrying: Bool = false) async throws -> String {
        var request = URLRequest(url: testURL("http://service.example/profile"))
        request.setValue("Bearer \(token.current)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await session.data(for: request)
        if (response as? HTTPURLResponse)?.statusCode == 401, !retrying {
            let (tokenData, _) = try await session.data(for: URLRequest(url: testURL("http://service.example/token/refresh")))
            let fresh = try JSONDecoder().decode([String: String].self, from: tokenData)
            token.withLock { $0 = fresh["token"] ?? "" }
            return try await profileName(retrying: true)
        }
        return try JSONDecoder().decode([String: String].self, from: data)["name"] ?? ""
    }
}
