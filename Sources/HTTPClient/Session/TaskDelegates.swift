import Foundation

// The task delegates of `URLSession`'s streams and progress transfers. Each implements only the
// callbacks its task needs: challenges, redirect decisions and metrics reach the session's own
// delegate.

/// One task's caller, waiting for what the task's delegate resumes it with.
final class TaskWaiter<Value: Sendable>: Sendable {
    private let waiting = Locked<CheckedContinuation<Value, any Error>?>(nil)

    /// Starts `task` and waits for its value; cancelling the Swift task cancels `task`.
    /// `abandon` ends the task's other outputs when it is cancelled before it starts.
    func run(_ task: URLSessionTask, for request: URLRequest, abandon: (any Error) -> Void = { _ in }) async throws -> Value {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                waiting.withLock { $0 = continuation }
                // Cancelled before `task` could be cancelled: it never runs, so no callback
                // would resume the caller.
                if Task.isCancelled {
                    var userInfo: [String: Any] = [:]
                    if let url = request.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
                    let error = URLError(.cancelled, userInfo: userInfo)
                    abandon(error)
                    resume(with: .failure(error))
                    return
                }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// Resumes the caller, once: later calls do nothing.
    func resume(with result: Result<Value, any Error>) {
        waiting.withLock { $0.take() }?.resume(with: result)
    }

    /// Whether the caller still waits.
    var isWaiting: Bool { waiting.withLock { $0 != nil } }
}

/// The delegate of one `chunks(for:)` task: hands its response to the caller as soon as the
/// headers arrive, then each piece of the body to the stream as it arrives.
final class ChunkReceiver: NSObject, URLSessionDataDelegate, Sendable {
    private let chunks: ChunkStream.Continuation
    private let waiter = TaskWaiter<URLResponse>()

    init(_ chunks: ChunkStream.Continuation) {
        self.chunks = chunks
    }

    /// Starts `task` and returns its response once the headers arrive.
    func response(of task: URLSessionDataTask, for request: URLRequest) async throws -> URLResponse {
        try await waiter.run(task, for: request) { chunks.finish(throwing: $0) }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        waiter.resume(with: .success(response))
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // A reader that has a window's worth waiting pauses the task, where pausing works.
        if chunks.yield(data) == .windowFull, suspendingADataTaskPausesIt { dataTask.suspend() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if waiter.isWaiting {
            var userInfo: [String: Any] = [:]
            if let url = task.originalRequest?.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
            waiter.resume(with: .failure(error ?? URLError(.badServerResponse, userInfo: userInfo)))
        }
        chunks.finish(throwing: error)
    }
}

/// The delegate of one download that reports progress: each write, then the file, moved out of
/// the session's hands.
final class DownloadReceiver: NSObject, URLSessionDownloadDelegate, Sendable {
    private let report: @Sendable (TransferProgress) -> Void
    private let file = Locked<URL?>(nil)
    private let waiter = TaskWaiter<(URL, URLResponse)>()

    init(_ report: @escaping @Sendable (TransferProgress) -> Void) {
        self.report = report
    }

    /// Starts `task` and returns the downloaded file once the body is complete.
    func file(of task: URLSessionDownloadTask, for request: URLRequest) async throws -> (URL, URLResponse) {
        try await waiter.run(task, for: request)
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    ) {
        report(TransferProgress(bytes: totalBytesWritten, expectedBytes: totalBytesExpectedToWrite > 0 ? totalBytesExpectedToWrite : nil))
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        // The session deletes `location` when this returns: the file is moved out now.
        let moved = URLSession.newDownloadFile()
        if (try? FileManager.default.moveItem(at: location, to: moved)) != nil { file.withLock { $0 = moved } }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let file = file.withLock { $0.take() }
        var userInfo: [String: Any] = [:]
        if let url = task.originalRequest?.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        if let failure = error ?? (task.response == nil ? URLError(.badServerResponse, userInfo: userInfo) : nil) {
            if let file { unlink(file.path) }
            waiter.resume(with: .failure(failure))
        } else if let file, let response = task.response {
            waiter.resume(with: .success((file, response)))
        } else {
            userInfo[NSLocalizedDescriptionKey] = "The downloaded file could not be moved out of the session's temporary directory."
            waiter.resume(with: .failure(URLError(.cannotMoveFile, userInfo: userInfo)))
        }
    }
}

/// The delegate of an upload that reports progress: each piece sent, against the length the
/// body was given, in order and never backwards; once the upload is answered, the whole body
/// (the session's last report may come after the answer, or not at all).
class UploadProgress: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    private let report: @Sendable (TransferProgress) -> Void
    private let expectedBytes: Int64
    /// The bytes reported so far, and whether the upload is over (later reports are dropped).
    private let reported = Locked<(bytes: Int64, over: Bool)>((-1, false))

    init(_ report: @escaping @Sendable (TransferProgress) -> Void, expectedBytes: Int64) {
        self.report = report
        self.expectedBytes = expectedBytes
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        send(totalBytesSent)
    }

    /// The upload was answered: the whole body is reported, once, and nothing after it.
    func finish() {
        send(expectedBytes, ending: true)
    }

    private func send(_ bytes: Int64, ending: Bool = false) {
        // Reported under the lock: the last report of the session's queue and the final one of
        // the caller's task cannot overtake each other.
        reported.withLock { reported in
            guard !reported.over, bytes > reported.bytes else {
                if ending { reported.over = true }
                return
            }
            reported = (bytes, ending)
            report(TransferProgress(bytes: bytes, expectedBytes: expectedBytes))
        }
    }
}

/// An upload of a body stream: it also makes a new stream when the session must send the body
/// again (after a redirect that keeps it, or an authentication challenge).
final class StreamUploadProgress: UploadProgress, @unchecked Sendable {
    private let makeBodyStream: @Sendable () -> InputStream

    init(_ report: @escaping @Sendable (TransferProgress) -> Void, expectedBytes: Int64, bodyStream: @escaping @Sendable () -> InputStream)
    {
        makeBodyStream = bodyStream
        super.init(report, expectedBytes: expectedBytes)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        completionHandler(makeBodyStream())
    }
}
