import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// Latency and throughput are waited out, on every transport (a `MockURLSession` when it
/// simulates latency). Only lower bounds are checked: a loaded machine can make an answer
/// later, never earlier.
@Suite("Latency and throughput, waited out")
struct LatencyTests {
    @Test(arguments: Transport.allCases)
    func latencyDelaysTheResponse(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/slow").respond(.text("late").delayed(by: 0.3))
        let client = HTTPClient(session: try transport.session(stubs, simulatesLatency: true))
        let clock = ContinuousClock()
        let start = clock.now
        let response = try await client.get(testURL("https://h/slow"))
        #expect(response.text == "late")
        #expect(clock.now - start >= .milliseconds(300))
    }

    /// The head waits for the latency, then each part for its pause.
    @Test(arguments: Transport.allCases)
    func aStreamedAnswerWaitsForItsLatencyThenItsPauses(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/feed").respond(.streamed([.text("one "), .pause(0.2), .text("two")]).delayed(by: 0.3))
        let session = try transport.session(stubs, simulatesLatency: true)
        let clock = ContinuousClock()
        let start = clock.now
        let (chunks, _) = try await session.chunks(for: URLRequest(url: testURL("https://h/feed")))
        let head = clock.now - start
        var body = Data()
        for try await chunk in chunks { body.append(chunk) }
        #expect(body == Data("one two".utf8))
        #expect(head >= .milliseconds(300))
        #expect(clock.now - start >= .milliseconds(500))
    }

    @Test(arguments: Transport.allCases)
    func throughputSpreadsTheBodyOverTime(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let body = Data(repeating: 7, count: 25_000)
        stubs.stub(.get, "/big").respond(.status(200, body: body).throttled(to: Throughput(bytesPerSecond: 100_000)))
        let clock = ContinuousClock()
        let start = clock.now
        let response = try await HTTPClient(session: try transport.session(stubs, simulatesLatency: true)).get(testURL("https://h/big"))
        #expect(response.body == body)
        // Chunks of 10,000 bytes: the first goes out with the head, each later one after the
        // time the one before it took, so the last arrives 0.2 s in.
        #expect(clock.now - start >= .milliseconds(200))
    }

    @Test(arguments: Transport.allCases)
    func cancellingDuringLatencyEndsWithCancelledAtOnce(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        // Long enough that cancelling always comes first, even on a loaded machine (under
        // ThreadSanitizer a 0.5 s latency lost that race, and a stalled run once held one test
        // for 39 s); cancelling ends the call at once.
        let stub = stubs.stub(.get, "/slow").respond(.text("late").delayed(by: 600))
        let client = HTTPClient(session: try transport.session(stubs, simulatesLatency: true))
        let call = Task { try await client.get(testURL("https://h/slow")) }
        try await stub.waitForRequests(timeout: eventWait)
        let clock = ContinuousClock()
        let start = clock.now
        call.cancel()
        let result = await call.result
        #expect((result.failure as? HTTPClientError)?.isCancelled == true)
        #expect(clock.now - start < .seconds(300))
    }

    /// A request cancelled while its answer waits out its latency is not delivered, not even
    /// when the latency is over.
    @Test(arguments: Transport.allCases)
    func aRequestCancelledDuringItsLatencyIsNeverDelivered(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let delivered = Locked(0)
        let cancelled = stubs.stub(.get, "/cancelled").respond(.text("late").delayed(by: 2)).onDelivery { _ in
            delivered.withLock { $0 += 1 }
        }
        let later = stubs.stub(.get, "/later").respond(.text("late").delayed(by: 2))
        let session = try transport.session(stubs, simulatesLatency: true)
        let call = Task { try await session.data(for: URLRequest(url: testURL("https://h/cancelled"))) }
        try await cancelled.waitForRequests(timeout: eventWait)
        call.cancel()
        // A run slow enough to cancel after the answer came has it delivered; then, it counts.
        let wasCancelled = (await call.result).failure != nil
        // The same latency, started after: by its end, the cancelled answer's is over too.
        _ = try await session.data(for: URLRequest(url: testURL("https://h/later")))
        try await later.waitForDeliveries(timeout: eventWait)
        #expect(delivered.current == (wasCancelled ? 0 : 1))
    }
}
