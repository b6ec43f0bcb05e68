import Foundation

/// The delegate of a companion session: routes each task's response, chunks, file and progress
/// to its caller.
final class CompanionDelegate: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate, Sendable {
    /// What one task's caller waits for.
    private enum Waiter {
        /// `chunks(for:)`: the response, then the chunks.
        case chunks(response: CheckedContinuation<URLResponse, any Error>?, chunks: ChunkStream.Continuation)
        /// A download: the file, moved out of the session's hands when it is complete.
        case download(CheckedContinuation<(URL, URLResponse), any Error>, progress: @Sendable (TransferProgress) -> Void, file: URL?)
        /// An upload: the response body, collected.
        case upload(CheckedContinuation<(Data, URLResponse), any Error>, progress: @Sendable (TransferProgress) -> Void, body: Data)
    }

    private let waiters = Locked<[Int: Waiter]>([:])

    // MARK: Starting

    func chunks(for request: URLRequest, on session: URLSession) async throws -> (ChunkStream, URLResponse) {
        let (stream, chunks) = ChunkStream.makeStream()
        let task = session.dataTask(with: request)
        task.taskDescription = URLSessionTask.chunksTaskDescription
        // Letting the stream go ends the task.
        chunks.onTermination = { [weak task] in task?.cancel() }
        // A full window suspended the task from the delegate queue (see `didReceive data`):
        // resuming from the same serial queue keeps the resume after the suspend. A suspended
        // task makes no network traffic (Apple's documentation), so the server's sending stops
        // at the socket buffers. Not on Linux: see `suspendingADataTaskPausesIt`.
        let delegateQueue = session.delegateQueue
        chunks.onDemand = { [weak task] in
            guard let task else { return }
            delegateQueue.addOperation { task.resume() }
        }
        let response = try await run(task, request: request) {
            .chunks(response: $0, chunks: chunks)
        } abandon: {
            chunks.finish(throwing: $0)
        }
        return (stream, response)
    }

    func download(
        for request: URLRequest, on session: URLSession, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> (URL, URLResponse) {
        try await run(session.downloadTask(with: request), request: request) { .download($0, progress: progress, file: nil) }
    }

    func upload(
        for request: URLRequest, fromFile file: URL, on session: URLSession, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> (Data, URLResponse) {
        try await run(session.uploadTask(with: request, fromFile: file), request: request) {
            .upload($0, progress: progress, body: Data())
        }
    }

    func upload(
        for request: URLRequest, from body: Data, on session: URLSession, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> (Data, URLResponse) {
        try await run(session.uploadTask(with: request, from: body), request: request) {
            .upload($0, progress: progress, body: Data())
        }
    }

    /// Registers the task's waiter, resumes the task, and cancels it with the Swift task.
    private func run<Value>(
        _ task: URLSessionTask, request: URLRequest, waiter: (CheckedContinuation<Value, any Error>) -> Waiter,
        abandon: (any Error) -> Void = { _ in }
    ) async throws -> Value {
        let identifier = task.taskIdentifier
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                waiters.withLock { $0[identifier] = waiter(continuation) }
                // Cancelled before the task could be cancelled: it never runs, so no callback
                // would resume the caller.
                if Task.isCancelled, waiters.withLock({ $0.removeValue(forKey: identifier) }) != nil {
                    var userInfo: [String: Any] = [:]
                    if let url = request.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
                    let error = URLError(.cancelled, userInfo: userInfo)
                    abandon(error)
                    continuation.resume(throwing: error)
                    return
                }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    // MARK: Data

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let continuation = waiters.withLock { waiters -> CheckedContinuation<URLResponse, any Error>? in
            guard case .chunks(let continuation?, let chunks) = waiters[dataTask.taskIdentifier] else { return nil }
            waiters[dataTask.taskIdentifier] = .chunks(response: nil, chunks: chunks)
            return continuation
        }
        continuation?.resume(returning: response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let chunks = waiters.withLock { waiters -> ChunkStream.Continuation? in
            switch waiters[dataTask.taskIdentifier] {
            case .chunks(_, let chunks): return chunks
            case .upload(let continuation, let progress, var body):
                body.append(data)
                waiters[dataTask.taskIdentifier] = .upload(continuation, progress: progress, body: body)
                return nil
            case .download, nil: return nil
            }
        }
        if chunks?.yield(data) == .windowFull, suspendingADataTaskPausesIt { dataTask.suspend() }
    }

    // MARK: Progress and files

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        guard case .upload(_, let progress, _) = waiters.withLock({ $0[task.taskIdentifier] }) else { return }
        progress(TransferProgress(bytes: totalBytesSent, expectedBytes: totalBytesExpectedToSend))
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    ) {
        guard case .download(_, let progress, _) = waiters.withLock({ $0[downloadTask.taskIdentifier] }) else { return }
        progress(TransferProgress(bytes: totalBytesWritten, expectedBytes: totalBytesExpectedToWrite))
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        // The session deletes `location` when this returns: the file is moved out now.
        let file = URLSession.newDownloadFile()
        let moved = (try? FileManager.default.moveItem(at: location, to: file)) != nil
        waiters.withLock { waiters in
            guard case .download(let continuation, let progress, _) = waiters[downloadTask.taskIdentifier] else { return }
            waiters[downloadTask.taskIdentifier] = .download(continuation, progress: progress, file: moved ? file : nil)
        }
    }

    // MARK: The end

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let waiter = waiters.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        var userInfo: [String: Any] = [:]
        if let url = task.originalRequest?.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        let failure = error ?? (task.response == nil ? URLError(.badServerResponse, userInfo: userInfo) : nil)
        switch waiter {
        case .chunks(let continuation, let chunks):
            if let continuation { continuation.resume(throwing: failure ?? URLError(.badServerResponse, userInfo: userInfo)) }
            chunks.finish(throwing: error)
        case .download(let continuation, _, let file):
            if let failure {
                if let file { try? FileManager.default.removeItem(at: file) }
                continuation.resume(throwing: failure)
            } else if let file, let response = task.response {
                continuation.resume(returning: (file, response))
            } else {
                userInfo[NSLocalizedDescriptionKey] = "The downloaded file could not be moved out of the session's temporary directory."
                continuation.resume(throwing: URLError(.cannotMoveFile, userInfo: userInfo))
            }
        case .upload(let continuation, _, let body):
            if let failure {
                continuation.resume(throwing: failure)
            } else if let response = task.response {
                continuation.resume(returning: (body, response))
            }
        }
    }
}
