import Foundation

/// How the client waits between attempts, and what time it is. Injected so that tests can run
/// "503, 503, then 200" with no wall time (see `ImmediateScheduler` in `HTTPClientStubs`).
public protocol RetryScheduler: Sendable {
    /// Waits `seconds`. Throws `CancellationError` as soon as the calling task is cancelled.
    func sleep(seconds: TimeInterval) async throws
    /// The current time, used to turn an HTTP-date `Retry-After` into a delay.
    func now() -> Date
}

/// Waits for real with `Task.sleep`. Users spell it `.live` (`RetryScheduler.live`).
public struct LiveRetryScheduler: RetryScheduler {
    /// Waits `seconds`, bounded as every delay is (at most one day): NaN, negative, infinite and
    /// huge values never trap the conversion to nanoseconds.
    public func sleep(seconds: TimeInterval) async throws {
        let seconds = RetryPolicy.safeDelay(seconds)
        guard seconds > 0 else { return try Task.checkCancellation() }
        try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }

    public func now() -> Date { Date() }
}

extension RetryScheduler where Self == LiveRetryScheduler {
    /// Real waiting: the default.
    public static var live: LiveRetryScheduler { LiveRetryScheduler() }
}
