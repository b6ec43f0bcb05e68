import Foundation
import HTTPClient

/// A counter that `async` code can wait on: "until 2 requests have arrived". Each wait has a
/// time limit, so a test whose code under test never sends fails with a message saying what
/// happened instead of hanging (see ``StubWaitError`` for the public waits' default).
final class Milestones: Sendable {
    private struct Waiter: Sendable {
        let id: Int
        let target: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State: Sendable {
        var count = 0
        var nextID = 0
        var waiters: [Waiter] = []
    }

    private let state = Locked(State())

    var count: Int { state.withLock { $0.count } }

    /// Counts one more event, or `delta` fewer (a held response that was released), and wakes
    /// the waits it satisfies.
    func advance(by delta: Int = 1) {
        let due = state.withLock { state -> [Waiter] in
            state.count += delta
            guard !state.waiters.isEmpty else { return [] }  // nearly always: nobody waits
            let count = state.count
            let due = state.waiters.filter { $0.target <= count }
            state.waiters.removeAll { $0.target <= count }
            return due
        }
        for waiter in due { waiter.continuation.resume() }
    }

    /// Returns once the count reaches `target`; throws ``StubWaitError`` after `timeout`, and
    /// `CancellationError` when the waiting task is cancelled.
    ///
    /// - Parameters:
    ///   - what: What is awaited, for the error: `requests to GET /feed`.
    ///   - observed: What happened instead, asked when the time runs out: one line each.
    func wait(
        until target: Int, timeout: Duration, waitingFor what: String, observed: @escaping @Sendable () -> [String] = { [] }
    ) async throws {
        let id = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let reached = state.withLock { state -> Bool in
                    if state.count >= target || Task.isCancelled { return true }
                    state.waiters.append(Waiter(id: id, target: target, continuation: continuation))
                    return false
                }
                if reached {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                    return
                }
                let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
                    guard let waiter = take(id) else { return }
                    waiter.continuation.resume(
                        throwing: StubWaitError(waitingFor: what, expected: target, seen: count, timeout: timeout, observed: observed()))
                }
            }
        } onCancel: {
            take(id)?.continuation.resume(throwing: CancellationError())
        }
    }

    @discardableResult
    private func take(_ id: Int) -> Waiter? {
        state.withLock { state in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
    }
}
