import Foundation

/// What ``HTTPClient``, and code written against `URLSession`, needs from a session: data tasks
/// for the completion-handler style, `URLSession`'s own `async` methods, and streams and
/// transfers that report progress.
///
/// `URLSession` conforms through an extension in this module, so production code passes a real
/// session while tests inject `MockURLSession` (or any type of their own). Code that calls
/// `try await session.data(for:)`, `upload(for:from:)` or `download(for:)` changes only the
/// type of the property that holds the session.
///
/// A conforming type implements ``makeDataTask(with:completionHandler:)`` only; every other
/// requirement has a default implementation over it (cancelling the Swift task cancels the data
/// task). `URLSession`'s own methods with a `delegate:` argument are its witnesses, so a
/// `URLSession` runs every request as it always does, on itself, with its own delegate; and
/// the requirements are named so that importing this module adds no method that a call to one
/// of `URLSession`'s own would reach instead.
public protocol URLSessionProtocol: Sendable {
    /// Creates, but does not start, a task that loads `request` and calls `completionHandler`
    /// once with the body, the response, or the error.
    func makeDataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any URLSessionDataTaskProtocol

    /// Loads `request` and returns the body and the response, like `URLSession.data(for:delegate:)`.
    func data(for request: URLRequest, delegate: (any URLSessionTaskDelegate)?) async throws -> (Data, URLResponse)

    /// Sends `request` with `bodyData` as its body, like `URLSession.upload(for:from:delegate:)`.
    func upload(
        for request: URLRequest, from bodyData: Data, delegate: (any URLSessionTaskDelegate)?
    ) async throws -> (Data, URLResponse)

    /// Sends `request` with the contents of `fileURL` as its body, like
    /// `URLSession.upload(for:fromFile:delegate:)`.
    func upload(
        for request: URLRequest, fromFile fileURL: URL, delegate: (any URLSessionTaskDelegate)?
    ) async throws -> (Data, URLResponse)

    /// Downloads `request`'s body to a temporary file, like `URLSession.download(for:delegate:)`:
    /// the file is the caller's to move or delete.
    func download(for request: URLRequest, delegate: (any URLSessionTaskDelegate)?) async throws -> (URL, URLResponse)

    /// Loads `request` and returns its response as soon as the headers arrive, with the body as
    /// a stream of chunks in the order they arrive: what `URLSession.bytes(for:)` does, in
    /// chunks, on every platform (corelibs has no `bytes(for:)`).
    ///
    /// The stream ends only when the body is complete; it throws the transport error of a
    /// transfer cut short, and `CancellationError` to a reader whose task is cancelled. When the
    /// reader lets the stream go (or its task is cancelled), the request is cancelled. A reader
    /// slower than the network holds at most about one window (``ChunkStream/defaultWindow``):
    /// a conforming type relays its body with ``ChunkStream/init(relaying:)``, which reads
    /// only while the reader keeps up. The default implementation loads the whole body first and yields it as
    /// one chunk; `URLSession` and `MockURLSession` deliver chunks as they come.
    ///
    /// `URLSession`'s implementation runs a data task whose
    /// `URLSessionTask.readsBodyInChunks` is `true`: a `URLProtocol` serving it
    /// may hand the body over in several `urlProtocol(_:didLoad:)` calls as it becomes available.
    func chunks(for request: URLRequest) async throws -> (ChunkStream, URLResponse)

    /// Downloads `request`'s body to a new temporary file (the caller's to move or delete)
    /// without holding it in memory, reporting progress as it is written.
    ///
    /// The default implementation writes ``chunks(for:)`` to the file; `URLSession` runs a
    /// download task.
    func download(for request: URLRequest, progress: @escaping @Sendable (TransferProgress) -> Void) async throws -> (URL, URLResponse)

    /// Sends `request` with the contents of `fileURL` as its body, reporting progress.
    ///
    /// Only a regular file (or a symbolic link to one) is sent: a missing file fails with
    /// `URLError(.fileDoesNotExist)`, a directory with `.fileIsDirectory`, a FIFO, device or
    /// socket with `.cannotOpenFile`, each before anything is sent and with a
    /// ``TransferFileError`` under `NSUnderlyingErrorKey`. Its length is taken once, when it is
    /// opened: exactly that many bytes are sent, read from disk as they go, and a file that
    /// changes size meanwhile fails with ``TransferFileError/Problem/sizeChanged(declared:found:)``.
    ///
    /// The default implementation reads the file into memory and calls
    /// ``upload(for:from:delegate:)``, reporting the whole file as sent once it is answered.
    func upload(
        for request: URLRequest, fromFile fileURL: URL, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> (Data, URLResponse)

    /// Sends `request` with `bodyData` as its body, reporting progress.
    ///
    /// The default implementation calls ``upload(for:from:delegate:)`` and reports the whole
    /// body as sent once it is answered.
    func upload(
        for request: URLRequest, from bodyData: Data, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> (Data, URLResponse)
}

extension URLSessionProtocol {
    // MARK: URLSession's calls without a delegate

    // A `URLSession` has each of these as its own method (with `delegate: nil` as a default
    // argument), which Swift prefers to these: on a `URLSession` the call is `URLSession`'s.

    /// Loads `request` and returns the body and the response, like `URLSession.data(for:)`.
    public func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        try await data(for: request, delegate: nil)
    }

    /// Sends `request` with `bodyData` as its body, like `URLSession.upload(for:from:)`.
    public func upload(for request: URLRequest, from bodyData: Data) async throws -> (Data, URLResponse) {
        try await upload(for: request, from: bodyData, delegate: nil)
    }

    /// Sends `request` with the contents of `fileURL` as its body, like
    /// `URLSession.upload(for:fromFile:)`.
    public func upload(for request: URLRequest, fromFile fileURL: URL) async throws -> (Data, URLResponse) {
        try await upload(for: request, fromFile: fileURL, delegate: nil)
    }

    /// Downloads `request`'s body to a temporary file, like `URLSession.download(for:)`.
    public func download(for request: URLRequest) async throws -> (URL, URLResponse) {
        try await download(for: request, delegate: nil)
    }

    // MARK: Default implementations over data tasks

    /// Runs a data task, cancelling it when the Swift task is cancelled (`URLError(.cancelled)`).
    /// A delegate is not called: only `URLSession` has one to call.
    public func data(for request: URLRequest, delegate: (any URLSessionTaskDelegate)?) async throws -> (Data, URLResponse) {
        let cancellation = TaskCancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
                let task = makeDataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let response {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse, userInfo: Self.failingURL(request)))
                    }
                }
                cancellation.register(task)
                task.resume()
            }
        } onCancel: {
            cancellation.cancel()
        }
    }

    /// Sends `request` with `bodyData` as its `httpBody`.
    public func upload(
        for request: URLRequest, from bodyData: Data, delegate: (any URLSessionTaskDelegate)?
    ) async throws -> (Data, URLResponse) {
        var request = request
        request.httpBodyStream = nil
        request.httpBody = bodyData
        return try await data(for: request, delegate: delegate)
    }

    /// Reads `fileURL` and sends it as the body, checked as
    /// ``upload(for:fromFile:progress:)`` describes.
    public func upload(
        for request: URLRequest, fromFile fileURL: URL, delegate: (any URLSessionTaskDelegate)?
    ) async throws -> (Data, URLResponse) {
        let body: Data
        do {
            body = try UploadSource(fileURL).readAll()
        } catch let error as TransferFileError {
            throw error.urlError(for: request)
        }
        return try await upload(for: request, from: body, delegate: delegate)
    }

    /// Loads `request` and writes the body to a new file in the temporary directory.
    public func download(for request: URLRequest, delegate: (any URLSessionTaskDelegate)?) async throws -> (URL, URLResponse) {
        let (body, response) = try await data(for: request, delegate: delegate)
        let file = Self.newDownloadFile()
        do {
            try body.write(to: file)
        } catch {
            var userInfo = Self.failingURL(request)
            userInfo[NSLocalizedDescriptionKey] = "The download could not be written to \(file.path): \(error.localizedDescription)"
            userInfo[NSUnderlyingErrorKey] = error
            throw URLError(.cannotCreateFile, userInfo: userInfo)
        }
        return (file, response)
    }

    /// Loads the whole body with ``data(for:delegate:)`` and yields it as one chunk.
    public func chunks(for request: URLRequest) async throws -> (ChunkStream, URLResponse) {
        let (data, response) = try await data(for: request, delegate: nil)
        return (ChunkStream.finished(data.isEmpty ? [] : [data]), response)
    }

    /// Writes ``chunks(for:)`` to a new temporary file as they arrive. A body that ends early,
    /// because the task was cancelled (`CancellationError`) or shorter than its
    /// `Content-Length` (`URLError(.networkConnectionLost)`), is an error and leaves no file.
    public func download(
        for request: URLRequest, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> (URL, URLResponse) {
        let (chunks, response) = try await chunks(for: request)
        return (try await Self.write(chunks, of: response, for: request, progress: progress), response)
    }

    /// Writes `chunks` to a new temporary file, reporting each write; a body cut short leaves
    /// no file.
    static func write(
        _ chunks: ChunkStream, of response: URLResponse, for request: URLRequest, progress: @Sendable (TransferProgress) -> Void
    ) async throws -> URL {
        let file = newDownloadFile()
        guard FileManager.default.createFile(atPath: file.path, contents: nil), let handle = try? FileHandle(forWritingTo: file) else {
            var userInfo = failingURL(request)
            userInfo[NSLocalizedDescriptionKey] = "The download could not be written to \(file.path)."
            throw URLError(.cannotCreateFile, userInfo: userInfo)
        }
        defer { try? handle.close() }
        let expected = response.expectedContentLength
        var written: Int64 = 0
        do {
            for try await chunk in chunks {
                try handle.write(contentsOf: chunk)
                written += Int64(chunk.count)
                progress(TransferProgress(bytes: written, expectedBytes: expected))
            }
            // A stream let go by a cancelled task ends as if the body were complete.
            try Task.checkCancellation()
            if response.isCutShort(after: written, for: request) { throw response.cutShortError(after: written, for: request) }
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
        }
        return file
    }

    /// Sends the file with ``upload(for:fromFile:delegate:)``; reports it whole once answered.
    public func upload(
        for request: URLRequest, fromFile fileURL: URL, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> (Data, URLResponse) {
        let body: Data
        do {
            body = try UploadSource(fileURL).readAll()
        } catch let error as TransferFileError {
            throw error.urlError(for: request)
        }
        return try await upload(for: request, from: body, progress: progress)
    }

    /// Sends the body with ``upload(for:from:delegate:)``; reports it whole once answered.
    public func upload(
        for request: URLRequest, from bodyData: Data, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> (Data, URLResponse) {
        let answer = try await upload(for: request, from: bodyData, delegate: nil)
        progress(TransferProgress(bytes: Int64(bodyData.count), expectedBytes: Int64(bodyData.count)))
        return answer
    }

    /// A new file name in the temporary directory for a downloaded body.
    static func newDownloadFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("HTTPClient-download-\(AtomicFile.randomName()).tmp")
    }

    private static func failingURL(_ request: URLRequest) -> [String: Any] {
        request.url.map { [NSURLErrorFailingURLErrorKey: $0] } ?? [:]
    }
}
