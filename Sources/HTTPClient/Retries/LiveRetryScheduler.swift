import Foundation

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
