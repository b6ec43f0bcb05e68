import Foundation
import HTTPClient
import HTTPClientMocks
@_spi(Engine) import HTTPClientStubs
import Testing

@Suite("Held responses and waiting for requests")
struct HeldResponseTests {
    @Test func aHeldResponseIsDeliveredInsideReleaseNotBefore() {
        let stubs = StubRegistry()
        let feed = HeldResponse()
        stubs.stub(.get, "/feed").respond(.text("[]").held(by: feed))
        let session = MockURLSession(stubs: stubs)
        let delivered = Locked<Data?>(nil)
        session.makeDataTask(with: URLRequest(url: testURL("https://h/feed"))) { data, _, _ in delivered.withLock { $0 = data } }
            .resume()
        #expect(delivered.current == nil)
        #expect(feed.heldRequests.map(\.path) == ["/feed"])
        feed.release()
        #expect(delivered.current == Data("[]".utf8))
        #expect(feed.heldRequests.isEmpty)
    }

    @Test(arguments: StubTransport.allCases)
    func aTestCanLookAtTheLoadingStateThenRelease(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        let feed = HeldResponse("feed")
        let stub = stubs.stub(.get, "/feed").respond(.text("[]").held(by: feed))
        let session = transport.session(stubs)
        let load = Task { try await session.data(for: URLRequest(url: testURL("https://h/feed"))) }
        try await feed.waitUntilHolding()
        #expect(stub.callCount == 1)
        #expect(stubs.heldRequests.count == 1)
        feed.release()
        let (data, _) = try await load.value
        #expect(data == Data("[]".utf8))
        try await stub.waitForDeliveries()
    }

    @Test(arguments: StubTransport.allCases)
    func aHeldResponseCanBeFailedInstead(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        let gate = HeldResponse()
        stubs.stub(.get, "/feed").respond(.text("[]").held(by: gate))
        let session = transport.session(stubs)
        let load = Task { try await session.data(for: URLRequest(url: testURL("https://h/feed"))) }
        try await gate.waitUntilHolding()
        gate.fail(with: URLError(.networkConnectionLost))
        let error = await #expect(throws: URLError.self) { try await load.value }
        #expect(error?.code == .networkConnectionLost)
    }

    @Test(arguments: StubTransport.allCases)
    func aHeldRequestCancelledBeforeReleaseHasNoEffectWhenReleased(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        let gate = HeldResponse()
        stubs.stub(.get, "/sso").respond(.status(302, headers: ["Location": "/home", "Set-Cookie": "sid=9; Path=/"]).held(by: gate))
        let home = stubs.stub(.get, "/home").respond(.text("home")).allowingUnused()
        let configuration = URLSessionConfiguration.ephemeral
        let session = transport.session(stubs, configuration: configuration)
        let load = Task { try await session.data(for: URLRequest(url: testURL("https://h/sso"))) }
        try await gate.waitUntilHolding()
        load.cancel()
        let error = await #expect(throws: URLError.self) { try await load.value }
        #expect(error?.code == .cancelled)
        gate.release()
        #expect(home.callCount == 0)
        #expect(configuration.httpCookieStorage?.cookies?.isEmpty == true)
    }

    @Test(arguments: StubTransport.allCases)
    func aHeldRequestCancelledBeforeReleaseLeavesTheHeldList(_ transport: StubTransport) async throws {
        let failures = CollectedFailures()
        let stubs = StubRegistry(reporting: failures.reporting)
        let gate = HeldResponse()
        stubs.stub(.get, "/feed").respond(.text("[]").held(by: gate))
        let session = transport.session(stubs)
        let load = Task { try await session.data(for: URLRequest(url: testURL("https://h/feed"))) }
        try await gate.waitUntilHolding()
        load.cancel()
        _ = try? await load.value
        #expect(gate.heldRequests.isEmpty)
        #expect(stubs.verifyNoHeldRequests())
        #expect(failures.all.isEmpty)
    }

    @Test(arguments: StubTransport.allCases)
    func manyHeldRequestsCancelledHalfwayLeaveOnlyTheOthersToRelease(_ transport: StubTransport) async throws {
        let stubs = StubRegistry()
        let gate = HeldResponse()
        stubs.stub(.get, "/sso/{n}").respond(.status(302, headers: ["Location": "/home", "Set-Cookie": "sid=9; Path=/"]).held(by: gate))
        let home = stubs.stub(.get, "/home").respond(.text("home"))
        let session = transport.session(stubs)
        let loads = (0..<50).map { n in Task { try await session.data(for: URLRequest(url: testURL("https://h/sso/\(n)"))) } }
        try await gate.waitUntilHolding(50)
        for load in loads[..<25] { load.cancel() }
        for load in loads[..<25] { _ = try? await load.value }
        #expect(gate.heldRequests.count == 25)
        gate.release()
        for load in loads[25...] { #expect(try await load.value.0 == Data("home".utf8)) }
        #expect(home.callCount == 25)
        #expect(stubs.verifyNoHeldRequests())
    }

    @Test func aReleasedGateLetsLaterRequestsThroughAtOnce() async throws {
        let stubs = StubRegistry()
        let gate = HeldResponse()
        stubs.stub(.get, "/x").respond(.text("x").held(by: gate))
        gate.release()
        let (data, _) = try await MockURLSession(stubs: stubs).data(for: URLRequest(url: testURL("https://h/x")))
        #expect(data == Data("x".utf8))
    }

    @Test func verificationReportsARequestStillHeld() {
        let failures = CollectedFailures()
        let stubs = StubRegistry(reporting: failures.reporting)
        let gate = HeldResponse("profile gate")
        stubs.stub(.get, "/profile").respond(.text("{}").held(by: gate))
        MockURLSession(stubs: stubs).makeDataTask(with: URLRequest(url: testURL("https://h/profile"))) { _, _, _ in }.resume()
        #expect(stubs.verify() == false)
        #expect(failures.all.contains { $0.contains("still held") && $0.contains("GET https://h/profile") && $0.contains("profile gate") })
        gate.release()
        #expect(stubs.verifyNoHeldRequests())
    }

    @Test func fireAndForgetCodeCanBeAwaitedThroughItsStub() async throws {
        let stubs = StubRegistry()
        let analytics = stubs.stub(.post, "/events").respond(.status(202))
        let session = MockURLSession(stubs: stubs, simulatesLatency: true)
        var event = URLRequest(url: testURL("https://h/events"))
        event.httpMethod = "POST"
        // What an app's analytics call does: starts a task and never looks at it again.
        session.makeDataTask(with: event) { _, _, _ in }.resume()
        session.makeDataTask(with: event) { _, _, _ in }.resume()
        try await analytics.waitForRequests(2)
        try await analytics.waitForDeliveries(2)
        #expect(analytics.callCount == 2)
    }

    @Test func callbacksSeeEachRequestAndEachDelivery() {
        let stubs = StubRegistry()
        let seen = Locked<[String]>([])
        stubs.stub(.get, "/a").respond(.text("a"))
            .onRequest { request in seen.withLock { $0.append("request \(request.path)") } }
            .onDelivery { request in seen.withLock { $0.append("delivered \(request.path)") } }
        MockURLSession(stubs: stubs).makeDataTask(with: URLRequest(url: testURL("https://h/a"))) { _, _, _ in
            seen.withLock { $0.append("completion") }
        }.resume()
        #expect(seen.current == ["request /a", "completion", "delivered /a"])
    }

    @Test func aWaitThatRunsOutOfTimeSaysWhatItWaitedFor() async throws {
        let stubs = StubRegistry()
        let stub = stubs.stub(.get, "/never").respond(.status(200)).allowingUnused()
        let error = await #expect(throws: StubWaitError.self) { try await stub.waitForRequests(1, timeout: .milliseconds(50)) }
        #expect(error?.seen == 0)
        #expect(error?.description.contains("requests to method GET && path /never") == true)
    }

    @Test func passThroughTakesAnyMatcherAndCanBeEnded() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.passThrough(.url("https://cdn.example/logo.png", ignoringQuery: true))
        stubs.passThrough(.host("127.0.0.1") && .path(.prefix("/assets")))
        func passesThrough(_ url: String) -> Bool {
            if case .passthrough = stubs.resolve(URLRequest(url: testURL(url))) { return true }
            return false
        }
        #expect(passesThrough("https://cdn.example/logo.png?v=3"))
        #expect(passesThrough("http://127.0.0.1:8080/assets/app.js"))
        #expect(!passesThrough("http://127.0.0.1:8080/api/users"))
        #expect(!passesThrough("https://cdn.example/other.png"))
        stubs.stopPassingThrough()
        #expect(!passesThrough("https://cdn.example/logo.png"))
    }
}
