import Foundation
import HTTPClient

/// Each task's completions by index, and a wait for a number of tasks to have ended.
// @unchecked: every property is behind `lock`.
final class OutcomeRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Int: [String]] = [:]
    private var waiters: [(id: Int, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private var nextWaiter = 0

    var outcomes: [Int: [String]] { lock.withLock { recorded } }

    func record(_ index: Int, _ outcome: String) {
        let ready = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            recorded[index, default: []].append(outcome)
            let ended = recorded.count
            let ready = waiters.filter { $0.count <= ended }.map { $0.continuation }
            waiters.removeAll { $0.count <= ended }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once `count` tasks have ended, or after `timeout` with what has ended by then: a
    /// task that never ends shows as a missing outcome, not as a test that never ends.
    func waitUntil(count: Int, timeout: TimeInterval = 600) async throws {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let id = lock.withLock { () -> Int? in
                guard recorded.count < count else { return nil }
                nextWaiter += 1
                waiters.append((nextWaiter, count, continuation))
                return nextWaiter
            }
            guard let id else { return continuation.resume() }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in
                let late = lock.withLock { () -> CheckedContinuation<Void, Never>? in
                    guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return waiters.remove(at: index).continuation
                }
                late?.resume()
            }
        }
    }
}

extension OutcomeRecorder {
    /// Makes `count` tasks for `path` on `session` (query `i=index`), has `drive` resume (and
    /// maybe cancel) each, and returns every completion each task made, once all made one.
    static func outcomes(
        ofTasks count: Int, on session: URLSession, path: String, drive: @escaping @Sendable (Int, URLSessionDataTask) -> Void
    ) async -> [Int: [String]] {
        let recorder = OutcomeRecorder()
        for index in 0..<count {
            let task = session.dataTask(with: testURL("https://h\(path)?i=\(index)")) { data, _, error in
                recorder.record(index, outcome(data, error))
            }
            drive(index, task)
        }
        try? await recorder.waitUntil(count: count)
        return recorder.outcomes
    }

    /// How a task ended, as text: its body, `cancelled`, or `error` and the error.
    static func outcome(_ data: Data?, _ error: (any Error)?) -> String {
        if let error { return (error as? URLError)?.code == .cancelled ? "cancelled" : "error \(error)" }
        return String(decoding: data ?? Data(), as: UTF8.self)
    }
}
