import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient
@testable import HTTPClientStubs

@Suite("URLProtocol transport")
struct URLProtocolTransportTests {
    let failures = CollectedFailures()

    @Test func httpClientOverARealURLSessionIsStubbed() async throws {
        struct User: Codable, Equatable, Sendable {
            let id: Int
            let name: String
        }
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "https://api.example.com/users/{id}").respond(
            .computed { request in
                try .json(User(id: Int(request.pathParameters["id"] ?? "") ?? 0, name: "Ada"), headers: ["ETag": "x1"])
            })
        let client = HTTPClient(session: stubs.makeURLSession(), baseURL: testURL("https://api.example.com"))

        let user = try await client.send(HTTPClient.Request<User>.get("users/5")).value
        let response = try await client.send(.get("users/5"))

        #expect(user == User(id: 5, name: "Ada"))
        #expect(response.headers["etag"] == "x1")
        #expect(stubs.requests.count == 2)
        #expect(failures.all.isEmpty)
    }

    @Test func thirdPartyCodeOnURLSessionIsStubbed() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.post, "/upload").matching(.body("raw bytes")).respond(.status(201, headers: ["Location": "/u/1"]))
        let session = stubs.makeURLSession()
        var upload = URLRequest(url: testURL("https://files.example.com/upload"))
        upload.httpMethod = "POST"
        upload.httpBodyStream = InputStream(data: Data("raw bytes".utf8))

        let (status, location) = await withCheckedContinuation { continuation in
            session.dataTask(with: upload) { _, response, _ in
                let http = response as? HTTPURLResponse
                continuation.resume(returning: (http?.statusCode, http?.value(forHTTPHeaderField: "location")))
            }.resume()
        }

        #expect(status == 201)
        #expect(location == "/u/1")
        #expect(failures.all.isEmpty)
    }

    @Test func errorStatusesKeepTheirBodyThroughFoundation() async {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.delete, "/items/1").respond(.json(raw: #"{"error":"locked"}"#, status: 423))
        let client = HTTPClient(session: stubs.makeURLSession())
        let error = await #expect(throws: HTTPClientError.self) { try await client.send(.delete(testURL("https://h/items/1"))) }
        #expect(error?.response?.statusCode == 423)
        #expect(error?.response?.text == #"{"error":"locked"}"#)
    }

    @Test func transportErrorsArriveAsURLErrors() async {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/offline").respond(.error(URLError(.notConnectedToInternet)))
        let error = await #expect(throws: HTTPClientError.self) {
            try await HTTPClient(session: stubs.makeURLSession()).get(testURL("https://h/offline"))
        }
        #expect(error?.urlError?.code == .notConnectedToInternet)
    }

    @Test func unmatchedRequestsFailWithTheReportAndNeverReachTheNetwork() async throws {
        let stubs = StubRegistry("protocol registry", reporting: failures.reporting)
        stubs.stub(.get, "/known")
        let error = await #expect(throws: HTTPClientError.self) {
            try await HTTPClient(session: stubs.makeURLSession()).get(testURL("https://unreachable.invalid/unknown"))
        }
        #expect(error?.urlError?.code != .cannotFindHost)
        #expect(error?.description.contains("Unmatched request in \"protocol registry\"") == true)
        #expect(failures.all.count == 1)
        #expect(failures.all.first?.contains("path /unknown != /known") == true)
    }

    @Test func latencyDelaysTheResponse() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/slow").respond(.text("late").delayed(by: 0.3))
        let client = HTTPClient(session: stubs.makeURLSession())
        let clock = ContinuousClock()
        let start = clock.now
        let response = try await client.get(testURL("https://h/slow"))
        #expect(response.text == "late")
        #expect(clock.now - start >= .milliseconds(300))
    }

    @Test func throughputSpreadsTheBodyOverTime() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let body = Data(repeating: 7, count: 25_000)
        stubs.stub(.get, "/big").respond(.status(200, body: body).throttled(to: Throughput(bytesPerSecond: 100_000)))
        let clock = ContinuousClock()
        let start = clock.now
        let response = try await HTTPClient(session: stubs.makeURLSession()).get(testURL("https://h/big"))
        #expect(response.body == body)
        // Chunks of 10,000 bytes: the first goes out with the head, each later one after the
        // time the one before it took, so the last arrives 0.2 s in.
        #expect(clock.now - start >= .milliseconds(200))
    }

    @Test func cancellingDuringLatencyEndsWithCancelledAndNoLaterCallback() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        // Long enough that cancelling always comes first, even on a loaded machine (under
        // ThreadSanitizer a 0.5 s latency lost that race, and a stalled run once held one test
        // for 39 s); cancelling ends the call at once.
        let stub = stubs.stub(.get, "/slow").respond(.text("late").delayed(by: 600))
        let client = HTTPClient(session: stubs.makeURLSession())
        let call = Task { try await client.get(testURL("https://h/slow")) }
        while stub.callCount == 0 { await Task.yield() }
        let clock = ContinuousClock()
        let start = clock.now
        call.cancel()
        let result = await call.result
        #expect((result.failure as? HTTPClientError)?.isCancelled == true)
        #expect(clock.now - start < .seconds(300))
    }

    @Test func passThroughHostsReachTheRealNetwork() async throws {
        let stubs = StubRegistry(passthroughHosts: ["127.0.0.1"], reporting: failures.reporting)
        // Port 9 (discard) on loopback is closed here: a connection refusal proves the request
        // left the stub engine for the real loading path.
        let error = await #expect(throws: HTTPClientError.self) {
            try await HTTPClient(session: stubs.makeURLSession()).get(testURL("http://127.0.0.1:9/"))
        }
        #expect(error?.urlError?.code == .cannotConnectToHost)
        #expect(failures.all.isEmpty)
    }

    @Test func twoRegistriesGetTwoProtocolClassesAndKeepTheirOwnStubs() async throws {
        let first = StubRegistry(reporting: .disabled)
        let second = StubRegistry(reporting: .disabled)
        first.stub(.get, "/who").respond(.text("first"))
        second.stub(.get, "/who").respond(.text("second"))
        #expect(ObjectIdentifier(first.urlProtocolClass) != ObjectIdentifier(second.urlProtocolClass))
        #expect(ObjectIdentifier(first.urlProtocolClass) == ObjectIdentifier(first.urlProtocolClass))
        #expect(try await HTTPClient(session: first.makeURLSession()).get(testURL("https://h/who")).text == "first")
        #expect(try await HTTPClient(session: second.makeURLSession()).get(testURL("https://h/who")).text == "second")
    }

    @Test func aSessionWhoseRegistryIsGoneFailsSayingSo() async throws {
        var stubs: StubRegistry? = StubRegistry(reporting: .disabled)
        stubs?.stub(.get, "/who").respond(.text("gone"))
        let session = try #require(stubs?.makeURLSession())
        weak let registry = stubs
        stubs = nil
        try #require(registry == nil)
        let error = await #expect(throws: HTTPClientError.self) { try await HTTPClient(session: session).get(testURL("https://h/who")) }
        #expect(error?.description.contains("The StubRegistry of this URLSession no longer exists") == true)
    }

    @Test func aClassMadeByOtherSlotsIsNotServedTheSharedSlotsRegistries() async throws {
        // Slot 0 of a private set of slots and slot 0 of the shared ones have the same number:
        // a class is found by what it is, so it is never handed another set's registry.
        let slots = ProtocolSlots(bits: 2)
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/who").respond(.text("private"))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [slots.protocolClass(for: stubs, behaviour: SessionBehaviour(configuration: .ephemeral))]
        #expect(ProtocolSlots.shared.lease(of: try #require(configuration.protocolClasses?.first)) == nil)
        let error = await #expect(throws: HTTPClientError.self) {
            try await HTTPClient(session: URLSession(configuration: configuration)).get(testURL("https://h/who"))
        }
        #expect(error?.description.contains("no longer exists") == true)
    }

    @Test func mockURLSessionHonoursLatencyOnlyWhenAsked() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/slow").respond(.text("late").delayed(by: 0.2))
        let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()
        HTTPClient(session: MockURLSession(stubs: stubs)).get(url: testURL("https://h/slow"), completion: recorder.record)
        #expect(recorder.callCount == 1)  // synchronous by default

        let simulated = HTTPClient(session: MockURLSession(stubs: stubs, simulatesLatency: true))
        let clock = ContinuousClock()
        let start = clock.now
        #expect(try await simulated.get(testURL("https://h/slow")).text == "late")
        #expect(clock.now - start >= .milliseconds(200))
    }

    @Test func mockURLSessionCancelsADelayedResponse() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        // Far longer than any stall between starting and cancelling, even under load.
        stubs.stub(.get, "/slow").respond(.text("late").delayed(by: 30))
        let session = MockURLSession(stubs: stubs, simulatesLatency: true)
        let task = session.nextDataTask
        let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()
        HTTPClient(session: session).get(url: testURL("https://h/slow"), completion: recorder.record)
        #expect(recorder.callCount == 0)
        task.cancel()
        #expect(recorder.value?.failure?.isCancelled == true)
        #expect(recorder.callCount == 1)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

@Suite("URLProtocol slots")
struct ProtocolSlotTests {
    @Test func whenEverySlotIsTakenRegistriesGetAClassWhoseRequestsFailClearly() async throws {
        let slots = ProtocolSlots(bits: 2)
        let behaviour = SessionBehaviour(configuration: .ephemeral)
        var registries = (0..<4).map { _ in StubRegistry(reporting: .disabled) }
        let classes = registries.map { ObjectIdentifier(slots.protocolClass(for: $0, behaviour: behaviour)) }
        #expect(Set(classes).count == 4)

        let overflow = StubRegistry(reporting: .disabled)
        #expect(ObjectIdentifier(slots.protocolClass(for: overflow, behaviour: behaviour)) == ObjectIdentifier(StubURLProtocol.self))

        registries.removeFirst()  // its slot is free again
        #expect(ObjectIdentifier(slots.protocolClass(for: overflow, behaviour: behaviour)) != ObjectIdentifier(StubURLProtocol.self))

        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubURLProtocol.self]
        let error = await #expect(throws: HTTPClientError.self) {
            try await HTTPClient(session: URLSession(configuration: configuration)).get(testURL("https://h/x"))
        }
        #expect(error?.description.contains("StubRegistry instances with URLSessions are alive at once") == true)
        withExtendedLifetime(registries) {}
    }
}
