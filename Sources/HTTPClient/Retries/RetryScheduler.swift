import Foundation

/// How the client waits between attempts, and what time it is. Injected so that tests can run
/// "503, 503, then 200" with no wall time (see `ImmediateScheduler` in `HTTPClientStubs`).
public protocol RetryScheduler: Sendable {
    /// Waits `seconds`. Throws `CancellationError` as soon as the calling task is cancelled.
    func sleep(seconds: TimeInterval) async throws
    /// The current time, used to turn an HTTP-date `Retry-After` into a delay.
    func now() -> Date
}
