import Foundation

/// What ``HTTPClient``, and code written against `URLSession`, needs from a session: data tasks
/// for the completion-handler style, and `URLSession`'s own `async` methods.
///
/// `URLSession` conforms through an extension in this module, so production code passes a real
/// session while tests inject `MockURLSession` (or any type of their own). Code that calls
/// `try await session.data(for:)`, `upload(for:from:)` or `download(for:)` changes only the
/// type of the property that holds the session.
///
/// A conforming type implements ``makeDataTask(with:completionHandler:)`` only; the `async`
/// methods have default implementations over it (cancelling the Swift task cancels the data
/// task). `URLSession` replaces each with its own method.
///
/// The data-task requirement is deliberately *not* spelled `dataTask(with:completionHandler:)`,
/// and `URLSession`'s `async` methods forward to the variants with a `delegate:` argument: a
/// method that calls one with its own signature would call itself forever.
public protocol URLSessionProtocol: Sendable {
    /// Creates, but does not start, a task that loads `request` and calls `completionHandler`
    /// once with the body, the response, or the error.
    func makeDataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any URLSessionDataTaskProtocol

    /// Loads `request` and returns the body and the response, like `URLSession.data(for:)`.
    func data(for request: URLRequest) async throws -> (Data, URLResponse)

    /// Sends `request` with `bodyData` as its body, like `URLSession.upload(for:from:)`.
    func upload(for request: URLRequest, from bodyData: Data) async throws -> (Data, URLResponse)

    /// Sends `request` with the contents of `fileURL` as its body, like
    /// `URLSession.upload(for:fromFile:)`.
    func upload(for request: URLRequest, fromFile fileURL: URL) async throws -> (Data, URLResponse)

    /// Downloads `request`'s body to a temporary file, like `URLSession.download(for:)`: the
    /// file is the caller's to move or delete.
    func download(for request: URLRequest) async throws -> (URL, URLResponse)

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

    /// Sends `request` with the contents of `fileURL` as its body, read from disk as it is
    /// sent, reporting progress.
    ///
    /// The default implementation calls ``upload(for:fromFile:)`` and reports the whole file
    /// as sent once it is answered; `URLSession` runs an upload task and reports as it sends.
    func upload(
        for request: URLRequest, fromFile fileURL: URL, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> (Data, URLResponse)

    /// Sends `request` with `bodyData` as its body, reporting progress.
    ///
    /// The default implementation calls ``upload(for:from:)`` and reports the whole body as
    /// sent once it is answered; `URLSession` runs an upload task and reports as it sends.
    func upload(
        for request: URLRequest, from bodyData: Data, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> (Data, URLResponse)
}

extension URLSessionProtocol {
    /// Runs a data task, cancelling it when the Swift task is cancelled (`URLError(.cancelled)`).
    public func data(for request: URLRequest) async throws -> (Data, URLResponse) {
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
    public func upload(for request: URLRequest, from bodyData: Data) async throws -> (Data, URLResponse) {
        var request = request
        request.httpBodyStream = nil
        request.httpBody = bodyData
        return try await data(for: request)
    }

    /// Reads `fileURL` and sends it as the body. Only a regular file (or a symbolic link to one)
    /// is sent: a missing file fails with `URLError(.fileDoesNotExist)` naming it, as
    /// `URLSession` does, a directory with `.fileIsDirectory`, a FIFO, device or socket with
    /// `.cannotOpenFile`, each before anything is sent and with a ``TransferFileError`` under
    /// `NSUnderlyingErrorKey`. Its length is taken once: a file that changes size while it is
    /// read fails the same way, with nothing sent.
    public func upload(for request: URLRequest, fromFile fileURL: URL) async throws -> (Data, URLResponse) {
        let body: Data
        do {
            body = try UploadSource(fileURL).readAll()
        } catch let error as TransferFileError {
            throw error.urlError(for: request)
        }
        return try await upload(for: request, from: body)
    }

    /// Loads `request` and writes the body to a new file in the temporary directory.
    public func download(for request: URLRequest) async throws -> (URL, URLResponse) {
        let (body, response) = try await data(for: request)
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

    /// Loads the whole body with ``data(for:)`` and yields it as one chunk.
    public func chunks(for request: URLRequest) async throws -> (ChunkStream, URLResponse) {
        let (data, response) = try await data(for: request)
        return (ChunkStream.finished(data.isEmpty ? [] : [data]), response)
    }

    /// Writes ``chunks(for:)`` to a new temporary file as they arrive. A body that ends early,
    /// because the task was cancelled (`CancellationError`) or shorter than its
    /// `Content-Length` (`URLError(.networkConnectionLost)`), is an error and leaves no file.
    public func download(
        for request: URLRequest, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> (URL, URLResponse) {
        let (chunks, response) = try await chunks(for: request)
        let file = Self.newDownloadFile()
        guard FileManager.default.createFile(atPath: file.path, contents: nil), let handle = try? FileHandle(forWritingTo: file) else {
            var userInfo = Self.failingURL(request)
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
        return (file, response)
    }

    /// Sends the file with ``upload(for:fromFile:)``; reports it whole once answered.
    public func upload(
        for request: URLRequest, fromFile fileURL: URL, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> (Data, URLResponse) {
        let answer = try await upload(for: request, fromFile: fileURL)
        let size = Int64((try? fileURL.resourceValues(forKeys: [.fileSizeKey]))?.fileSize ?? 0)
        progress(TransferProgress(bytes: size, expectedBytes: size))
        return answer
    }

    /// Sends the body with ``upload(for:from:)``; reports it whole once answered.
    public func upload(
        for request: URLRequest, from bodyData: Data, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> (Data, URLResponse) {
        let answer = try await upload(for: request, from: bodyData)
        progress(TransferProgress(bytes: Int64(bodyData.count), expectedBytes: Int64(bodyData.count)))
        return answer
    }

    /// A new file name in the temporary directory for a downloaded body.
    static func newDownloadFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("HTTPClient-download-\(UUID().uuidString).tmp")
    }

    private static func failingURL(_ request: URLRequest) -> [String: Any] {
        request.url.map { [NSURLErrorFailingURLErrorKey: $0] } ?? [:]
    }
}
