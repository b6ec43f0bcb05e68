import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient

/// Every delay a policy, a server or an interceptor asks for is bounded before anyone waits:
/// none of these may trap the nanosecond conversion or wait longer than the policy allows.
@Suite("Retry delays are bounded")
struct RetryDelayBoundTests {
    let session = MockURLSession()
    let scheduler = ImmediateScheduler()

    static let hostileDelays: [TimeInterval] = [.infinity, 1e11, .nan, -5, .greatestFiniteMagnitude]

    @Test("an interceptor's delay is capped by the policy's maximum", arguments: hostileDelays)
    func interceptorDelayIsCappedByThePolicy(seconds: TimeInterval) async throws {
        session.enqueue(.status(503), .text("ok"))
        let client = HTTPClient(
            session: session, interceptors: [RetryOnce(decision: .retryAfter(seconds))],
            retryPolicy: RetryPolicy(maximumDelay: 10, jitter: 0), scheduler: scheduler)
        #expect(try await client.get(url("https://h/x")).text == "ok")
        let expected: TimeInterval = seconds.isNaN || seconds < 0 ? 0 : 10
        #expect(scheduler.delays == [expected])
    }

    @Test func withoutAPolicyAnInterceptorsDelayIsCappedByTheStandardMaximum() async throws {
        session.enqueue(.status(503), .text("ok"))
        let client = HTTPClient(session: session, interceptors: [RetryOnce(decision: .retryAfter(1e11))], scheduler: scheduler)
        _ = try await client.get(url("https://h/x"))
        #expect(scheduler.delays == [RetryPolicy.standard.maximumDelay])
    }

    @Test func anInfiniteMaximumDelayBecomesTheLongestDelay() {
        #expect(RetryPolicy(maximumDelay: .infinity).maximumDelay == RetryPolicy.longestDelay)
        #expect(RetryPolicy(maximumDelay: .nan).maximumDelay == 0)
        #expect(
            RetryPolicy(initialDelay: .infinity, multiplier: .nan, jitter: .nan).delay(
                after: .failure(.unacceptableStatus(.init(statusCode: 503))), attempt: 2, isIdempotent: true,
                now: Date(), random: .nan) == RetryPolicy.standard.maximumDelay)
    }

    @Test func aRetryAfterDateInTheYear9999IsCappedByAnUnboundedPolicy() async throws {
        session.enqueue(.status(503, headers: ["Retry-After": "Fri, 31 Dec 9999 23:59:59 GMT"]), .text("ok"))
        let client = HTTPClient(session: session, retryPolicy: RetryPolicy(maximumDelay: .infinity, jitter: 0), scheduler: scheduler)
        _ = try await client.get(url("https://h/x"))
        #expect(scheduler.delays == [RetryPolicy.longestDelay])
    }

    @Test(
        "the live scheduler never traps on a huge delay, and a cancelled wait ends at once",
        arguments: [TimeInterval.infinity, 1e11, .greatestFiniteMagnitude])
    func liveSchedulerSurvivesHugeDelays(seconds: TimeInterval) async {
        let wait = Task { try await LiveRetryScheduler().sleep(seconds: seconds) }
        wait.cancel()
        let result = await wait.result
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test("the live scheduler treats NaN and negative delays as none", arguments: [TimeInterval.nan, -5, -TimeInterval.infinity])
    func liveSchedulerDoesNotWaitForNonsense(seconds: TimeInterval) async throws {
        try await LiveRetryScheduler().sleep(seconds: seconds)
    }

    @Test func aYear9999RetryAfterThroughTheAsyncAPIWaitsUntilCancelled() async throws {
        session.enqueue(.status(503, headers: ["Retry-After": "Fri, 31 Dec 9999 23:59:59 GMT"]), .text("never"))
        let client = HTTPClient(session: session, retryPolicy: RetryPolicy(maximumDelay: .infinity), scheduler: .live)
        await expectCancellingEndsTheWait(session) { try await client.get(url("https://h/x")) }
    }

    @Test func anInfiniteInterceptorDelayThroughTheCompletionAPIWaitsUntilCancelled() async throws {
        session.enqueue(.status(503), .text("never"))
        let client = HTTPClient(
            session: session, interceptors: [RetryOnce(decision: .retryAfter(.infinity))],
            retryPolicy: RetryPolicy(maximumDelay: .infinity), scheduler: .live)
        await expectCancellingTheTaskEndsTheWait(session) { client.get(url: url("https://h/x"), completion: $0) }
    }
}
