import Foundation

extension HTTPClient {
    /// Downloads the body of `request` to a file, never holding it in memory.
    ///
    /// ```swift
    /// let file = try await client.download(.get("exports/2026.csv"), to: destination) { progress in
    ///     print(progress.fractionCompleted ?? 0)
    /// }
    /// ```
    ///
    /// Interceptors, validation, retries and ``onEvent`` apply as to ``send(_:)``. A rejected
    /// status throws ``HTTPClientError/unacceptableStatus(_:)`` with up to 1 MiB of the body and
    /// leaves no file behind.
    ///
    /// The destination is replaced in one step (the body goes to a temporary file beside it,
    /// renamed over it with rename(2)), and only once the body is complete and accepted: a
    /// download that fails, is rejected or is cancelled leaves the previous file as it was and
    /// no temporary file. A regular file is replaced keeping its permissions; a symbolic link to
    /// one has its *target* replaced (the link stays). A directory, a FIFO, a device, a socket,
    /// a link to nothing and a missing folder are refused before anything is sent, with
    /// ``HTTPClientError/file(_:)`` naming the path and what is there; nothing is ever removed.
    /// Cancelling the task throws ``HTTPClientError/cancelled``; a body shorter than its
    /// `Content-Length` is an error (`URLError(.networkConnectionLost)`), never a short file.
    ///
    /// - Parameters:
    ///   - request: The request; its body, if any, is sent as with ``send(_:)``.
    ///   - destination: The file the body replaces or creates (see above). `nil` keeps it in a
    ///     new temporary file, the caller's to move or delete.
    ///   - progress: Called as the body is written: bytes so far, and the total when known.
    public func download(
        _ request: Request<Data>, to destination: URL? = nil, progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(HTTPClientError) -> DownloadedFile {
        try await runDownload(request, to: destination, progress: progress).get()
    }

    /// Downloads the body of `request` to a file and calls `completion` once with the file or
    /// the error (see ``download(_:to:progress:)``: the destination is handled the same way).
    ///
    /// - Parameters:
    ///   - request: The request; its body, if any, is sent as with ``send(_:)``.
    ///   - destination: The file the body replaces or creates; `nil` keeps it in a new
    ///     temporary file.
    ///   - progress: Called as the body is written.
    ///   - completion: Called once with the file or the error.
    /// - Returns: The started task; cancel it to end the download with ``HTTPClientError/cancelled``.
    // Disfavoured: in async code a trailing closure is a progress handler of the async form.
    @_disfavoredOverload @discardableResult
    public func download(
        _ request: Request<Data>, to destination: URL? = nil, progress: (@Sendable (TransferProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<DownloadedFile, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        PipelineTask(Task { completion(await runDownload(request, to: destination, progress: progress)) })
    }

    private func runDownload(
        _ request: Request<Data>, to destination: URL?, progress: (@Sendable (TransferProgress) -> Void)?
    ) async -> Result<DownloadedFile, HTTPClientError> {
        // Refused before anything is sent; checked again when the file is put in place.
        if let destination {
            do {
                _ = try TransferFiles.replaceableFile(at: destination)
            } catch {
                return .failure(.file(error))
            }
        }
        return await run(request) { urlRequest, validation, number in
            await downloadAttempt(urlRequest, validation: validation, number: number, to: destination, progress: progress)
        }
    }

    /// What an upload sends as its body: bytes in memory, or a file read as it is sent.
    public enum UploadBody: Sendable {
        /// These bytes: for a large `Data` body and a progress bar.
        case data(Data)
        /// The contents of this regular file (or a symbolic link to one), read from disk as they
        /// are sent.
        case file(URL)
    }

    /// Sends `request` with `body` as its body (the request's own body is not sent), reporting
    /// progress as it is sent, and returns the response, its value decoded as the request asks.
    ///
    /// ```swift
    /// let response = try await client.upload(.put("exports/2026.csv"), from: .file(csv)) { progress in
    ///     print(progress.fractionCompleted ?? 0)
    /// }
    /// ```
    ///
    /// Only a regular file (or a symbolic link to one) is sent: a directory, a FIFO, a device
    /// (`/dev/zero`, `/dev/stdin` on a terminal or a pipe), a socket or a missing file fails at
    /// once with ``HTTPClientError/file(_:)`` naming the path and what is there, before anything
    /// is sent. The file's length is taken once and declared as `Content-Length`; exactly that
    /// many bytes are sent, and a file that grows or shrinks meanwhile fails the upload with
    /// ``TransferFileError/Problem/sizeChanged(declared:found:)``, never sending more than
    /// declared and never waiting on bytes that will not come. The file is read as it is sent:
    /// nothing is copied. (On Linux, where a streamed body cannot declare its length, it is sent
    /// with `Transfer-Encoding: chunked`: see README's Platforms table.)
    /// Cancelling the task throws ``HTTPClientError/cancelled``.
    ///
    /// - Parameters:
    ///   - request: The request (method, URL, headers, what the response decodes to); its own
    ///     body is not sent.
    ///   - body: The bytes, or the file whose contents are the body.
    ///   - progress: Called as the body is sent: bytes so far, and the total.
    public func upload<Value>(
        _ request: Request<Value>, from body: UploadBody, progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(HTTPClientError) -> Response<Value> {
        try await runUpload(request, body: body, progress: progress).get()
    }

    /// Sends `request` with `body` as its body and calls `completion` once with the response or
    /// the error (see ``upload(_:from:progress:)``: a file is checked the same way).
    ///
    /// - Parameters:
    ///   - request: The request (method, URL, headers, what the response decodes to); its own
    ///     body is not sent.
    ///   - body: The bytes, or the file whose contents are the body.
    ///   - progress: Called as the body is sent.
    ///   - completion: Called once with the response or the error.
    /// - Returns: The started task; cancel it to end the upload with ``HTTPClientError/cancelled``.
    // Disfavoured: in async code a trailing closure is a progress handler of the async form.
    @_disfavoredOverload @discardableResult
    public func upload<Value>(
        _ request: Request<Value>, from body: UploadBody, progress: (@Sendable (TransferProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<Response<Value>, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        PipelineTask(Task { completion(await runUpload(request, body: body, progress: progress)) })
    }

    private func runUpload<Value>(
        _ request: Request<Value>, body: UploadBody, progress: (@Sendable (TransferProgress) -> Void)?
    ) async -> Result<Response<Value>, HTTPClientError> {
        if case .file(let file) = body {
            do {
                _ = try UploadSource(file)
            } catch {
                return .failure(.file(error))
            }
        }
        let decoder = self.decoder
        return await run(request) { urlRequest, validation, number in
            var upload = urlRequest
            upload.httpBody = nil
            upload.httpBodyStream = nil
            return await measuredAttempt(upload, number: number, head: { $0 }) {
                // Bytes without progress: the session's own upload (no delegate hop per piece). A
                // file always goes through the upload that sends exactly the length it had.
                let (data, response) =
                    switch (body, progress) {
                    case (.data(let bytes), let progress?): try await session.upload(for: upload, from: bytes, progress: progress)
                    case (.data(let bytes), nil): try await session.upload(for: upload, from: bytes)
                    case (.file(let file), let progress):
                        try await session.upload(for: upload, fromFile: file, progress: progress ?? { _ in })
                    }
                // A session that answered after its task was cancelled: cancelled is never success.
                if Task.isCancelled { return .failure(.cancelled) }
                return Self.result(data: data, response: response, error: nil, request: upload, validation: validation)
            }
        }.flatMap { Self.decoded($0, request.decoding, decoder) }
    }

    private func downloadAttempt(
        _ urlRequest: URLRequest, validation: Validation, number: Int, to destination: URL?,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) async -> Result<DownloadedFile, HTTPClientError> {
        await measuredAttempt(urlRequest, number: number, head: \.head) {
            // Without progress, the session's own download: on Linux the progress path costs a
            // delegate-queue hop per chunk (measured: 0.71x the throughput of `download(for:)`).
            let (file, response) =
                if let progress {
                    try await session.download(for: urlRequest, progress: progress)
                } else {
                    try await session.download(for: urlRequest)
                }
            // A session that handed over a file after its task was cancelled: the file may be
            // partial, and cancelled is never success.
            if Task.isCancelled {
                unlink(file.path)
                return .failure(.cancelled)
            }
            return Self.downloaded(file, response: response, request: urlRequest, validation: validation, to: destination)
        }
    }

    /// Validates a downloaded response and moves its file where it was asked to go.
    private static func downloaded(
        _ file: URL, response: URLResponse, request: URLRequest, validation: Validation, to destination: URL?
    ) -> Result<DownloadedFile, HTTPClientError> {
        var head: Response<Data>
        switch Self.response(response, body: nil, request: request) {
        case .success(let typed):
            head = typed
        case .failure(let error):
            try? FileManager.default.removeItem(at: file)
            return .failure(error)
        }
        if let rejection = validation.rejection(of: head) {
            // The error carries what a rejected answer says, within a bound; the file goes.
            head.body = (try? FileHandle(forReadingFrom: file)).flatMap { try? $0.read(upToCount: rejectedStreamBodyLimit) } ?? Data()
            try? FileManager.default.removeItem(at: file)
            return .failure(rejection.error(for: head))
        }
        // Whatever the session: a file shorter than its Content-Length is a transfer cut short.
        var size = stat()
        let received = stat(file.path, &size) == 0 ? Int64(size.st_size) : 0
        if response.isCutShort(after: received, for: request) {
            unlink(file.path)
            return .failure(.transport(response.cutShortError(after: received, for: request)))
        }
        guard let destination else { return .success(DownloadedFile(head: head, fileURL: file)) }
        do {
            try TransferFiles.move(file, to: destination)
        } catch {
            return .failure(.file(error))
        }
        return .success(DownloadedFile(head: head, fileURL: destination))
    }
}
