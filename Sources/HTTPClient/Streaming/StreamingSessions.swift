import Foundation

/// The companion sessions behind `URLSession.chunks(for:)`: for each session that streams, a
/// session with the same configuration whose delegate passes every chunk on as it arrives.
package final class StreamingSessions: Sendable {
    static let shared = StreamingSessions()

    /// What marks a streaming task for a URLProtocol (in `URLProtocol.task`): the stub
    /// transport then hands the body over chunk by chunk, which a completion-handler task on
    /// Linux would not survive (each `didLoad` there replaces the data before it).
    package static let taskDescription = "HTTPClient.chunks(for:)"

    private struct Companion: Sendable {
        weak var owner: URLSession?
        let session: URLSession
        let delegate: ChunkDelegate
    }

    private let companions = Locked<[ObjectIdentifier: Companion]>([:])

    func chunks(for request: URLRequest, on owner: URLSession) async throws -> (AsyncThrowingStream<Data, any Error>, URLResponse) {
        let (session, delegate) = companion(of: owner)
        return try await delegate.start(request, on: session)
    }

    private func companion(of owner: URLSession) -> (URLSession, ChunkDelegate) {
        let (companion, released) = companions.withLock { companions -> (Companion, [Companion]) in
            // A session's identifier can be reused once it is gone: an entry counts only while
            // its owner lives, and the companions of released sessions are let go here.
            let released = companions.values.filter { $0.owner == nil }
            companions = companions.filter { $0.value.owner != nil }
            if let existing = companions[ObjectIdentifier(owner)], existing.owner === owner { return (existing, released) }
            let delegate = ChunkDelegate()
            let session = URLSession(configuration: owner.configuration, delegate: delegate, delegateQueue: nil)
            let companion = Companion(owner: owner, session: session, delegate: delegate)
            companions[ObjectIdentifier(owner)] = companion
            return (companion, released)
        }
        // Tasks still streaming on a released companion finish first.
        for old in released { old.session.finishTasksAndInvalidate() }
        return (companion.session, companion.delegate)
    }
}

/// The delegate of a companion session: routes each task's response and chunks to its caller.
final class ChunkDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct Pending {
        var response: CheckedContinuation<URLResponse, any Error>?
        let chunks: AsyncThrowingStream<Data, any Error>.Continuation
    }

    private let pending = Locked<[Int: Pending]>([:])

    func start(_ request: URLRequest, on session: URLSession) async throws -> (AsyncThrowingStream<Data, any Error>, URLResponse) {
        let (stream, chunks) = AsyncThrowingStream<Data, any Error>.makeStream()
        let task = session.dataTask(with: request)
        task.taskDescription = StreamingSessions.taskDescription
        let identifier = task.taskIdentifier
        // Stopping the iteration (or finishing it) ends the task; cancelling a finished task
        // does nothing.
        chunks.onTermination = { [weak task] _ in task?.cancel() }
        let response = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URLResponse, any Error>) in
                pending.withLock { $0[identifier] = Pending(response: continuation, chunks: chunks) }
                // Cancelled before the task could be cancelled: it never runs, so no callback
                // would resume the caller.
                if Task.isCancelled, let cancelled = pending.withLock({ $0.removeValue(forKey: identifier) }) {
                    var userInfo: [String: Any] = [:]
                    if let url = request.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
                    let error = URLError(.cancelled, userInfo: userInfo)
                    cancelled.response?.resume(throwing: error)
                    cancelled.chunks.finish(throwing: error)
                    return
                }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
        return (stream, response)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let continuation = pending.withLock { pending -> CheckedContinuation<URLResponse, any Error>? in
            defer { pending[dataTask.taskIdentifier]?.response = nil }
            return pending[dataTask.taskIdentifier]?.response
        }
        continuation?.resume(returning: response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let chunks = pending.withLock { $0[dataTask.taskIdentifier]?.chunks }
        chunks?.yield(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let finished = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let continuation = finished.response {
            var userInfo: [String: Any] = [:]
            if let url = task.originalRequest?.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
            continuation.resume(throwing: error ?? URLError(.badServerResponse, userInfo: userInfo))
        }
        finished.chunks.finish(throwing: error)
    }
}
