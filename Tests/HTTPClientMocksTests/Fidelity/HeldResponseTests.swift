import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@_spi(Engine) @testable import HTTPClientStubs

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

    @Test(arguments: Transport.allCases)
    func aTestCanLookAtTheLoadingStateThenRelease(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let feed = HeldResponse("feed")
        let stub = stubs.stub(.get, "/feed").respond(.text("[]").held(by: feed))
        let session = try transport.session(stubs)
        let load = Task { try await session.data(for: URLRequest(url: testURL("https://h/feed"))) }
        try await feed.waitUntilHolding(timeout: eventWait)
        #expect(stub.callCount == 1)
        #expect(stubs.heldRequests.count == 1)
        feed.release()
        let (data, _) = try await load.value
        #expect(data == Data("[]".utf8))
        try await stub.waitForDeliveries(timeout: eventWait)
    }

    /// Where a stubbed error cannot reach the client as it is (documented), the request still fails.
    @Test(arguments: Transport.allCases)
    func aHeldResponseCanBeFailedInstead(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let gate = HeldResponse()
        stubs.stub(.get, "/feed").respond(.text("[]").held(by: gate))
        let session = try transport.session(stubs)
        let load = Task { try await session.data(for: URLRequest(url: testURL("https://h/feed"))) }
        try await gate.waitUntilHolding(timeout: eventWait)
        gate.fail(with: URLError(.networkConnectionLost))
        let error = await #expect(throws: URLError.self) { try await load.value }
        if !transport.differs(in: .stubbedErrors) { #expect(error?.code == .networkConnectionLost) }
    }

    @Test(arguments: Transport.allCases)
    func aHeldStreamedAnswerStartsOnlyOnceReleased(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let gate = HeldResponse()
        stubs.stub(.get, "/feed").respond(.streamed([.text("one "), .pause(0.01), .text("two")]).held(by: gate))
        let session = try transport.session(stubs, simulatesLatency: true)
        let headArrived = Locked(false)
        let load = Task {
            let (chunks, _) = try await session.chunks(for: URLRequest(url: testURL("https://h/feed")))
            headArrived.withLock { $0 = true }
            var body = Data()
            for try await chunk in chunks { body.append(chunk) }
            return body
        }
        try await gate.waitUntilHolding(timeout: eventWait)
        #expect(!headArrived.current)
        gate.release()
        #expect(try await load.value == Data("one two".utf8))
    }

    /// The test decides when a held request ends, whatever its timeout; where the client keeps
    /// its own clock (documented), it times out there instead.
    @Test(arguments: Transport.allCases)
    func aHeldRequestIgnoresTheTimeout(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let gate = HeldResponse()
        stubs.stub(.get, "/feed").respond(.text("[]").held(by: gate))
        var request = URLRequest(url: testURL("https://h/feed"))
        request.timeoutInterval = 1
        let session = try transport.session(stubs, simulatesLatency: true)
        let load = Task { try await session.data(for: request) }
        try await gate.waitUntilHolding(timeout: eventWait)
        if transport.differs(in: .heldRequestsIgnoreTimeouts) {
            let error = await #expect(throws: URLError.self) { try await load.value }
            #expect(error?.code == .timedOut)
            #expect(await eventually { gate.heldRequests.isEmpty })
            return
        }
        // Twice the timeout: one not ignored would have fired by now (a slow run can only make
        // it later, and then this passes without having proved anything, never fails).
        try await Task.sleep(for: .seconds(2))
        #expect(gate.heldRequests.count == 1)
        gate.release()
        #expect(try await load.value.0 == Data("[]".utf8))
    }

    @Test(arguments: Transport.allCases)
    func aHeldRequestCancelledBeforeReleaseHasNoEffectWhenReleased(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let gate = HeldResponse()
        stubs.stub(.get, "/sso").respond(.status(302, headers: ["Location": "/home", "Set-Cookie": "sid=9; Path=/"]).held(by: gate))
        let home = stubs.stub(.get, "/home").respond(.text("home")).allowingUnused()
        let configuration = URLSessionConfiguration.ephemeral
        let session = try transport.session(stubs, configuration: configuration)
        let load = Task { try await session.data(for: URLRequest(url: testURL("https://h/sso"))) }
        try await gate.waitUntilHolding(timeout: eventWait)
        load.cancel()
        let error = await #expect(throws: URLError.self) { try await load.value }
        #expect(error?.code == .cancelled)
        gate.release()
        #expect(home.callCount == 0)
        #expect(configuration.httpCookieStorage?.cookies?.isEmpty == true)
    }

    /// A request cancelled while held is not delivered: not when it is cancelled, and not when
    /// the gate opens later.
    @Test(arguments: Transport.allCases)
    func aHeldRequestCancelledBeforeReleaseIsNeverDelivered(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let gate = HeldResponse()
        let delivered = Locked(0)
        stubs.stub(.get, "/feed").respond(.text("[]").held(by: gate)).onDelivery { _ in delivered.withLock { $0 += 1 } }
        let session = try transport.session(stubs)
        let load = Task { try await session.data(for: URLRequest(url: testURL("https://h/feed"))) }
        try await gate.waitUntilHolding(timeout: eventWait)
        load.cancel()
        _ = try? await load.value
        if transport.differs(in: .cancellation) { #expect(await eventually { gate.heldRequests.isEmpty }) }
        gate.release()
        #expect(delivered.current == 0)
    }

    @Test(arguments: Transport.allCases)
    func aHeldRequestCancelledBeforeReleaseLeavesTheHeldList(_ transport: Transport) async throws {
        let failures = CollectedFailures()
        let stubs = StubRegistry(reporting: failures.reporting)
        let gate = HeldResponse()
        stubs.stub(.get, "/feed").respond(.text("[]").held(by: gate))
        let session = try transport.session(stubs)
        let load = Task { try await session.data(for: URLRequest(url: testURL("https://h/feed"))) }
        try await gate.waitUntilHolding(timeout: eventWait)
        load.cancel()
        _ = try? await load.value
        // Where the stubs learn of a cancel after the client (documented), wait for it.
        if transport.differs(in: .cancellation) { #expect(await eventually { gate.heldRequests.isEmpty }) }
        #expect(gate.heldRequests.isEmpty)
        #expect(stubs.verifyNoHeldRequests())
        #expect(failures.all.isEmpty)
    }

    @Test(arguments: Transport.allCases)
    func manyHeldRequestsCancelledHalfwayLeaveOnlyTheOthersToRelease(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let gate = HeldResponse()
        stubs.stub(.get, "/sso/{n}").respond(.status(302, headers: ["Location": "/home", "Set-Cookie": "sid=9; Path=/"]).held(by: gate))
        let home = stubs.stub(.get, "/home").respond(.text("home")).allowingUnused()
        let session = try transport.session(stubs)
        let loads = (0..<50).map { n in Task { try await session.data(for: URLRequest(url: testURL("https://h/sso/\(n)"))) } }
        try await gate.waitUntilHolding(50, timeout: eventWait)
        for load in loads[..<25] { load.cancel() }
        for load in loads[..<25] { _ = try? await load.value }
        if transport.differs(in: .cancellation) { #expect(await eventually { gate.heldRequests.count == 25 }) }
        #expect(gate.heldRequests.count == 25)
        gate.release()
        let follows = !transport.differs(in: .redirects)
        for load in loads[25...] { #expect(try await load.value.1.status == (follows ? 200 : 302)) }
        #expect(home.callCount == (follows ? 25 : 0))
        #expect(stubs.verifyNoHeldRequests())
    }

    @Test(arguments: Transport.allCases)
    func aReleasedGateLetsLaterRequestsThroughAtOnce(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let gate = HeldResponse()
        stubs.stub(.get, "/x").respond(.text("x").held(by: gate))
        gate.release()
        let (data, _) = try await transport.session(stubs).data(for: URLRequest(url: testURL("https://h/x")))
        #expect(data == Data("x".utf8))
    }

    @Test(arguments: Transport.allCases)
    func verificationReportsARequestStillHeld(_ transport: Transport) async throws {
        let failures = CollectedFailures()
        let stubs = StubRegistry(reporting: failures.reporting)
        let gate = HeldResponse("profile gate")
        let profile = stubs.stub(.get, "/profile").respond(.text("{}").held(by: gate))
        let session = try transport.session(stubs)
        // The server's client times the held request out after its own timeout otherwise.
        session.makeDataTask(with: URLRequest(url: testURL("https://h/profile"), timeoutInterval: 4 * 3600)) { _, _, _ in }.resume()
        try await gate.waitUntilHolding(timeout: eventWait)
        #expect(stubs.verify() == false)
        #expect(failures.all.contains { $0.contains("still held") && $0.contains("GET http") && $0.contains("://h/profile") })
        #expect(failures.all.contains { $0.contains("profile gate") })
        gate.release()
        #expect(stubs.verifyNoHeldRequests())
        try await profile.waitForDeliveries(timeout: eventWait)
    }

    @Test(arguments: Transport.allCases)
    func fireAndForgetCodeCanBeAwaitedThroughItsStub(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let analytics = stubs.stub(.post, "/events").respond(.status(202))
        let session = try transport.session(stubs, simulatesLatency: true)
        var event = URLRequest(url: testURL("https://h/events"))
        event.httpMethod = "POST"
        // What an app's analytics call does: starts a task and never looks at it again.
        session.makeDataTask(with: event) { _, _, _ in }.resume()
        session.makeDataTask(with: event) { _, _, _ in }.resume()
        try await analytics.waitForRequests(2, timeout: eventWait)
        try await analytics.waitForDeliveries(2, timeout: eventWait)
        #expect(analytics.callCount == 2)
    }

    /// Where the stubs cannot see a completion handler (documented), the delivery and the
    /// handler come in either order, both after the request.
    @Test(arguments: Transport.allCases)
    func callbacksSeeEachRequestAndEachDelivery(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let seen = Locked<[String]>([])
        let completed = Milestones()
        let stub = stubs.stub(.get, "/a").respond(.text("a"))
            .onRequest { request in seen.withLock { $0.append("request \(request.path)") } }
            .onDelivery { request in seen.withLock { $0.append("delivered \(request.path)") } }
        try transport.session(stubs).makeDataTask(with: URLRequest(url: testURL("https://h/a"))) { _, _, _ in
            seen.withLock { $0.append("completion") }
            completed.advance()
        }.resume()
        try await completed.wait(until: 1, timeout: eventWait, waitingFor: "the completion handler")
        try await stub.waitForDeliveries(timeout: eventWait)
        if transport.differs(in: .deliveryAfterTheCompletionHandler) {
            #expect(seen.current.first == "request /a")
            #expect(seen.current.sorted() == ["completion", "delivered /a", "request /a"])
        } else {
            #expect(seen.current == ["request /a", "completion", "delivered /a"])
        }
    }

    /// A wait that a request or a delivery ends returns after the stub's callbacks for it ran:
    /// what a callback recorded is there when the test looks. Each callback takes a millisecond,
    /// so that a wait woken before the callbacks would look too early.
    @Test(arguments: Transport.allCases)
    func aWaitReturnsAfterTheCallbacksOfWhatItCounted(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let seen = Locked((requests: 0, deliveries: 0))
        let stub = stubs.stub(.get, "/a").respond(.text("a"))
            .onRequest { _ in
                Thread.sleep(forTimeInterval: 0.001)
                seen.withLock { $0.requests += 1 }
            }
            .onDelivery { _ in
                Thread.sleep(forTimeInterval: 0.001)
                seen.withLock { $0.deliveries += 1 }
            }
        let session = try transport.session(stubs)
        for count in 1...10 {
            session.makeDataTask(with: URLRequest(url: testURL("https://h/a"))) { _, _, _ in }.resume()
            try await stub.waitForRequests(count, timeout: eventWait)
            #expect(seen.current.requests == count)
            try await stub.waitForDeliveries(count, timeout: eventWait)
            #expect(seen.current.deliveries == count)
        }
    }

    /// A response counts as delivered (`onDelivery`, `waitForDeliveries`) once the client has all
    /// of it, not at its head: a stream in the middle of a pause has not been delivered.
    @Test(arguments: Transport.allCases)
    func aStreamedResponseIsDeliveredOnlyOnceItsBodyHasEnded(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let delivered = Locked(0)
        stubs.stub(.get, "/feed").respond(.streamed([.text("one"), .pause(3600), .text("two")]))
            .onDelivery { _ in delivered.withLock { $0 += 1 } }
        let session = try transport.session(stubs, simulatesLatency: true)
        // A request times out after its own timeout too (60 s by default): the pause outlasts
        // that, and a slow run may check after it.
        let (chunks, _) = try await session.chunks(for: URLRequest(url: testURL("https://h/feed"), timeoutInterval: 4 * 3600))
        var iterator = chunks.makeAsyncIterator()
        #expect(try await iterator.next() == Data("one".utf8))
        #expect(delivered.current == 0)
    }

    /// A held response has not been delivered before it is released.
    @Test(arguments: Transport.allCases)
    func aHeldResponseIsDeliveredOnlyOnceReleased(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let gate = HeldResponse()
        let delivered = Locked(0)
        let stub = stubs.stub(.get, "/feed").respond(.text("[]").held(by: gate)).onDelivery { _ in delivered.withLock { $0 += 1 } }
        let session = try transport.session(stubs)
        let load = Task { try await session.data(for: URLRequest(url: testURL("https://h/feed"))) }
        try await gate.waitUntilHolding(timeout: eventWait)
        #expect(delivered.current == 0)
        gate.release()
        _ = try await load.value
        try await stub.waitForDeliveries(timeout: eventWait)
        #expect(delivered.current == 1)
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
