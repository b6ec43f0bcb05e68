import Foundation

extension URLSession: URLSessionProtocol {
    /// Forwards to `dataTask(with:completionHandler:)`.
    public func makeDataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any URLSessionDataTaskProtocol {
        let task: URLSessionDataTask = dataTask(with: request, completionHandler: completionHandler)
        return task
    }

    // Each forwards to the method with a `delegate:` argument: without it, the call would
    // resolve to the method it is written in.

    /// `URLSession`'s own `data(for:delegate:)`.
    public func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        try await data(for: request, delegate: nil)
    }

    /// `URLSession`'s own `upload(for:from:delegate:)`.
    public func upload(for request: URLRequest, from bodyData: Data) async throws -> (Data, URLResponse) {
        try await upload(for: request, from: bodyData, delegate: nil)
    }

    /// `URLSession`'s own `upload(for:fromFile:delegate:)`, given a private copy of the file
    /// that holds exactly the bytes declared: only a regular file is sent, and one that changes
    /// size meanwhile fails with a `URLError` over a ``TransferFileError`` naming it.
    public func upload(for request: URLRequest, fromFile fileURL: URL) async throws -> (Data, URLResponse) {
        try await upload(for: request, fromFile: fileURL) { copy in try await upload(for: request, fromFile: copy, delegate: nil) }
    }

    /// `URLSession`'s own `download(for:delegate:)`.
    public func download(for request: URLRequest) async throws -> (URL, URLResponse) {
        try await download(for: request, delegate: nil)
    }

    /// Runs `request` on a companion session with the same configuration and a delegate that
    /// hands each chunk over as it arrives (a task delegate gets no callbacks on Linux, and a
    /// session's delegate cannot be added after it is made). One companion per session, made on
    /// first use and released with the session.
    public func chunks(for request: URLRequest) async throws -> (ChunkStream, URLResponse) {
        let (session, delegate) = CompanionSessions.shared.companion(of: self)
        return try await delegate.chunks(for: request, on: session)
    }

    /// A download task on the companion session: the body goes to disk as it arrives.
    public func download(
        for request: URLRequest, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> (URL, URLResponse) {
        let (session, delegate) = CompanionSessions.shared.companion(of: self)
        return try await delegate.download(for: request, on: session, progress: progress)
    }

    /// An upload task on the companion session, given a private copy of the file that holds
    /// exactly the bytes declared, checked as ``upload(for:fromFile:)`` checks it.
    public func upload(
        for request: URLRequest, fromFile fileURL: URL, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> (Data, URLResponse) {
        let (session, delegate) = CompanionSessions.shared.companion(of: self)
        return try await upload(for: request, fromFile: fileURL) { copy in
            try await delegate.upload(for: request, fromFile: copy, on: session, progress: progress)
        }
    }

    /// Sends a private copy of `fileURL` with `send`, then checks `fileURL` kept its size.
    ///
    /// A session's upload task reads the file by itself, to its end, after declaring the size
    /// it found: on Linux a file that grows meanwhile is sent past its `Content-Length` (the
    /// excess reads as further requests on a kept-alive connection) and one that shrinks leaves
    /// the server waiting until the timeout; a FIFO or a device is read forever. The copy (in the
    /// temporary directory, removed afterwards) holds exactly the length taken when the file was
    /// opened, so neither can happen; a file that changed size while it was copied or sent fails
    /// with a ``TransferFileError`` (under a `URLError`, as in the default implementation).
    private func upload(
        for request: URLRequest, fromFile fileURL: URL, sending send: (URL) async throws -> (Data, URLResponse)
    ) async throws -> (Data, URLResponse) {
        do {
            let source = try UploadSource(fileURL)
            let copy = try source.snapshot()
            defer { unlink(copy.path) }
            let answer = try await send(copy)
            try source.checkUnchanged()
            return answer
        } catch let error as TransferFileError {
            throw error.urlError(for: request)
        }
    }

    /// An upload task on the companion session, reporting as it sends.
    public func upload(
        for request: URLRequest, from bodyData: Data, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> (Data, URLResponse) {
        let (session, delegate) = CompanionSessions.shared.companion(of: self)
        return try await delegate.upload(for: request, from: bodyData, on: session, progress: progress)
    }
}

extension URLSessionDataTask: URLSessionDataTaskProtocol {}
