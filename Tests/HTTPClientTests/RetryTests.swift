import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient

@Suite("Retry policy")
struct RetryTests {
    let session = MockURLSession()
    let scheduler = ImmediateScheduler()
    /// No jitter, so the delays are exact.
    let policy = RetryPolicy(maximumAttempts: 4, initialDelay: 0.5, multiplier: 2, maximumDelay: 10, jitter: 0)

    func client(_ policy: RetryPolicy? = nil) -> HTTPClient {
        HTTPClient(session: session, retryPolicy: policy ?? self.policy, scheduler: scheduler)
    }

    /// The waits go to the injected scheduler (which records them and returns at once), so
    /// the test spends no wall time on them.
    @Test func failTwiceThenSucceedWaitsThroughTheSchedulerAndRecordsTheDelays() async throws {
        session.enqueue(.status(503), .status(503), .text("ok"))
        let response = try await client().get(url("https://h/x"))
        #expect(response.text == "ok")
        #expect(session.requests.count == 3)
        #expect(scheduler.delays == [0.5, 1.0])
    }

    @Test func stopsAfterTheMaximumAttemptsWithTheLastError() async {
        session.enqueue(.status(500), .status(502), .status(503), .status(504), .status(200))
        let error = await #expect(throws: HTTPClientError.self) { try await client().get(url("https://h/x")) }
        #expect(error?.response?.statusCode == 504)
        #expect(session.requests.count == 4)
        #expect(scheduler.delays == [0.5, 1.0, 2.0])
    }

    @Test("default retryable statuses", arguments: [408, 429, 500, 502, 503, 504])
    func retriesDefaultStatuses(status: Int) async throws {
        session.enqueue(.status(status), .status(200))
        #expect(try await client(.standard).get(url("https://h/x")).statusCode == 200)
        #expect(session.requests.count == 2)
    }

    @Test("other statuses are not retried", arguments: [400, 401, 404, 501])
    func doesNotRetryOtherStatuses(status: Int) async {
        session.enqueue(.status(status), .status(200))
        await #expect(throws: HTTPClientError.self) { try await client().get(url("https://h/x")) }
        #expect(session.requests.count == 1)
    }

    @Test func retriesTransientTransportErrorsOnly() async throws {
        session.enqueue(
            .error(URLError(.timedOut)), .error(URLError(.networkConnectionLost)), .error(URLError(.notConnectedToInternet)), .text("ok"))
        #expect(try await client().get(url("https://h/x")).text == "ok")
        session.enqueue(.error(URLError(.cannotFindHost)), .text("never"))
        await #expect(throws: HTTPClientError.self) { try await client().get(url("https://h/x")) }
        #expect(session.requests.count == 5)
    }

    @Test func neverResendsANonIdempotentRequestUnlessItOptsIn() async throws {
        session.enqueue(.status(503), .status(201))
        await #expect(throws: HTTPClientError.self) { try await client().post(url("https://h/orders"), body: Data("1".utf8)) }
        #expect(session.requests.count == 1)

        var request = HTTPClient.Request<Data>.post(url("https://h/orders"), body: .text("1"), headers: ["Idempotency-Key": "k1"])
        request.isIdempotent = true
        session.removeAllRecords()
        session.enqueue(.status(503), .status(201))
        #expect(try await client().send(request).statusCode == 201)
        #expect(session.requests.count == 2)
    }

    @Test func retryAfterInSecondsReplacesTheBackoff() async throws {
        session.enqueue(.status(429, headers: ["Retry-After": "7"]), .status(200))
        _ = try await client().get(url("https://h/x"))
        #expect(scheduler.delays == [7])
    }

    @Test func retryAfterAsAnHTTPDateIsMeasuredFromNow() async throws {
        // The scheduler's virtual now is 2027-01-15T08:00:00Z; the server says 08:00:03.
        session.enqueue(.status(503, headers: ["Retry-After": "Fri, 15 Jan 2027 08:00:03 GMT"]), .status(200))
        _ = try await client().get(url("https://h/x"))
        #expect(scheduler.delays == [3])
    }

    @Test func retryAfterIsCappedByTheMaximumDelay() async throws {
        session.enqueue(.status(503, headers: ["Retry-After": "86400"]), .status(200))
        _ = try await client().get(url("https://h/x"))
        #expect(scheduler.delays == [10])
    }

    @Test("garbage Retry-After is ignored", arguments: ["soon", "-5", "1.5", "99999999999999", "Fri, 99 Foo 2027 25:00:00 GMT", ""])
    func garbageRetryAfterFallsBackToTheBackoff(value: String) async throws {
        session.enqueue(.status(503, headers: ["Retry-After": value]), .status(200))
        _ = try await client().get(url("https://h/x"))
        #expect(scheduler.delays == [0.5])
        #expect(RetryPolicy.retryAfter(value, now: Date()) == nil)
    }

    @Test func retryAfterParsesTheObsoleteDateForms() {
        let now = Date(timeIntervalSince1970: 0)
        #expect(RetryPolicy.retryAfter("Thursday, 01-Jan-70 00:00:09 GMT", now: now) == 9)
        #expect(RetryPolicy.retryAfter("Thu Jan  1 00:00:09 1970", now: now) == 9)
        #expect(RetryPolicy.retryAfter("Thu, 01 Jan 1970 00:00:00 GMT", now: Date(timeIntervalSince1970: 50)) == 0)
    }

    @Test func jitterShortensTheDelayWithinItsFraction() {
        let jittered = RetryPolicy(initialDelay: 1, jitter: 0.2)
        let failure = Result<HTTPClient.Response<Data>, HTTPClientError>.failure(.unacceptableStatus(.init(statusCode: 503)))
        #expect(jittered.delay(after: failure, attempt: 1, isIdempotent: true, now: Date(), random: 0) == 1)
        #expect(jittered.delay(after: failure, attempt: 1, isIdempotent: true, now: Date(), random: 1) == 0.8)
        #expect(jittered.delay(after: failure, attempt: 2, isIdempotent: true, now: Date(), random: 0.5) == 1.8)
    }

    @Test func aRequestCanOverrideOrDisableTheClientsPolicy() async throws {
        session.enqueue(.status(503), .status(200))
        var request = HTTPClient.Request<Data>.get(url("https://h/x"))
        request.retryPolicy = .disabled
        await #expect(throws: HTTPClientError.self) { try await client().send(request) }
        #expect(session.requests.count == 1)

        session.removeAllRecords()
        session.enqueue(.status(503), .status(200))
        request.retryPolicy = RetryPolicy(initialDelay: 3, jitter: 0)
        _ = try await HTTPClient(session: session, scheduler: scheduler).send(request)
        #expect(scheduler.delays == [3])
    }

    @Test func withoutAPolicyNothingIsRetried() async {
        session.enqueue(.status(503), .status(200))
        await #expect(throws: HTTPClientError.self) { try await HTTPClient(session: session).get(url("https://h/x")) }
        #expect(session.requests.count == 1)
    }

    @Test func cancellationStopsTheLoopWhileWaiting() async throws {
        session.enqueue(.status(503), .status(200))
        let client = HTTPClient(session: session, retryPolicy: RetryPolicy(initialDelay: 60, jitter: 0), scheduler: .live)
        await expectCancellingEndsTheWait(session) { try await client.get(url("https://h/x")) }
    }

    @Test func theCompletionAPIRetriesToo() async throws {
        session.enqueue(.status(503), .text("ok"))
        let result = await withCheckedContinuation { continuation in
            client().get(url: url("https://h/x")) { continuation.resume(returning: $0) }
        }
        #expect(try result.get().text == "ok")
        #expect(scheduler.delays == [0.5])
    }

    @Test func cancellingTheCompletionAPITaskEndsTheLoop() async throws {
        session.enqueue(.status(503), .status(200))
        let client = HTTPClient(session: session, retryPolicy: RetryPolicy(initialDelay: 60, jitter: 0))
        await expectCancellingTheTaskEndsTheWait(session) { client.get(url: url("https://h/x"), completion: $0) }
    }
}
