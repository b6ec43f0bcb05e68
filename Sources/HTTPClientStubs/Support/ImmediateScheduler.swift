import Foundation
import HTTPClient

/// A `RetryScheduler` for tests: it never waits, records every delay the client asked for,
/// and advances a virtual clock by it (so HTTP-date `Retry-After` values compute correctly).
///
/// ```swift
/// let scheduler = ImmediateScheduler()
/// let client = HTTPClient(session: session, retryPolicy: .standard, scheduler: scheduler)
/// // ... 503, 503, then 200, in no wall time:
/// #expect(scheduler.delays.count == 2)
/// ```
public final class ImmediateScheduler: RetryScheduler {
    private let state: Locked<(now: Date, delays: [TimeInterval])>

    /// - Parameter now: The virtual time at the start.
    public init(now: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        state = Locked((now, []))
    }

    /// Every delay the client would have waited, in order.
    public var delays: [TimeInterval] { state.withLock { $0.delays } }

    public func sleep(seconds: TimeInterval) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.delays.append(seconds)
            state.now += seconds
        }
    }

    public func now() -> Date { state.withLock { $0.now } }
}
