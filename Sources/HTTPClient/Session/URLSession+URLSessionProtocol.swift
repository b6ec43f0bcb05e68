import Foundation

// `URLSession`'s own `data(for:delegate:)`, `upload(for:from:delegate:)`,
// `upload(for:fromFile:delegate:)` and `download(for:delegate:)` are its witnesses: nothing here
// wraps or replaces them. The methods below run on the session they are called on too
// (`Platform.swift` says where corelibs makes that impossible for a stream), with a delegate
// of the task's own: a challenge, a redirect decision or a metric that delegate does not handle
// reaches the session's delegate, as Apple documents for task delegates. (`download(for:delegate:)`
// cannot report progress: Apple's reports no writes to its delegate, and corelibs' writes every
// byte twice to the file when the delegate takes them.)
extension URLSession: URLSessionProtocol {
    /// Forwards to `dataTask(with:completionHandler:)`.
    public func makeDataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any URLSessionDataTaskProtocol {
        let task: URLSessionDataTask = dataTask(with: request, completionHandler: completionHandler)
        return task
    }

    /// Runs a data task whose delegate hands each chunk over as it arrives.
    public func chunks(for request: URLRequest) async throws -> (ChunkStream, URLResponse) {
        let (stream, chunks) = ChunkStream.makeStream()
        let receiver = ChunkReceiver(chunks)
        let task = delegatedTask(receiver) { $0.dataTask(with: request) }
        task.taskDescription = URLSessionTask.chunksTaskDescription
        // Letting the stream go ends the task.
        chunks.onTermination = { [weak task] in task?.cancel() }
        // A full window suspended the task from the delegate queue (see `ChunkReceiver`):
        // resuming from the same serial queue keeps the resume after the suspend. A suspended
        // task makes no network traffic (Apple's documentation), so the server's sending stops
        // at the socket buffers. Not on Linux: see `suspendingADataTaskPausesIt`.
        if suspendingADataTaskPausesIt {
            let delegateQueue = delegateQueue
            chunks.onDemand = { [weak task] in
                guard let task else { return }
                delegateQueue.addOperation { task.resume() }
            }
        }
        return (stream, try await receiver.response(of: task, for: request))
    }

    /// A download task whose delegate reports each write and moves the file out of the session's
    /// hands once the body is complete.
    public func download(
        for request: URLRequest, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> (URL, URLResponse) {
        let receiver = DownloadReceiver(progress)
        return try await receiver.file(of: delegatedTask(receiver) { $0.downloadTask(with: request) }, for: request)
    }

    /// Sends the file's bytes, as many as it held when it was opened, read as they are sent
    /// through a body stream: nothing is copied, and a file that changes size meanwhile fails
    /// with a `URLError` over a ``TransferFileError`` naming it.
    public func upload(
        for request: URLRequest, fromFile fileURL: URL, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> (Data, URLResponse) {
        let source: UploadSource
        do {
            source = try UploadSource(fileURL)
        } catch {
            throw error.urlError(for: request)
        }
        var streamed = request
        streamed.httpBody = nil
        streamed.httpBodyStream = source.bodyStream()
        if bodyStreamsCanDeclareTheirLength {
            streamed.setValue(String(source.length), forHTTPHeaderField: "Content-Length")
        }
        let delegate = StreamUploadProgress(progress, expectedBytes: source.length, bodyStream: { source.bodyStream() })
        defer { source.uploadEnded() }
        do {
            let answer = try await data(for: streamed, delegate: delegate)
            try source.checkUnchanged()
            delegate.finish()
            return answer
        } catch let error as TransferFileError {
            throw error.urlError(for: request)
        } catch {
            // A body stream that ended early (a file that shrank) fails the task: the file says why.
            do { try source.checkUnchanged() } catch let changed { throw changed.urlError(for: request) }
            throw error
        }
    }

    /// `URLSession`'s own upload, with a task delegate that reports each piece sent.
    public func upload(
        for request: URLRequest, from bodyData: Data, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> (Data, URLResponse) {
        let delegate = UploadProgress(progress, expectedBytes: Int64(bodyData.count))
        let answer = try await upload(for: request, from: bodyData, delegate: delegate)
        delegate.finish()
        return answer
    }
}

extension URLSessionDataTask: URLSessionDataTaskProtocol {}
