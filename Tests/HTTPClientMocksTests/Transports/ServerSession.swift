import Foundation
import HTTPClient
import HTTPClientMocks

/// A real `URLSession` whose every request goes to a ``StubServer`` on loopback: the
/// `Transport.stubServer` column.
///
/// A test writes its requests for `https://h/feed` on every transport; here each is sent to
/// `http://127.0.0.1:PORT/feed` with `Host: h`, as if `h` resolved to the server, so the stubs
/// record it at `http://h/feed` (the server speaks plain HTTP: a stub that names the scheme
/// `https` does not match here). Answers come back as the server sent them, at the server's URL.
///
/// The client does nothing of its own around an answer (no redirect followed, no cookie kept,
/// nothing cached), so what the test sees is what the server sent; only its clock is its own
/// (the configuration's and the request's timeouts). The server lives as long as the session
/// and its tasks: it stops once both are gone.
final class ServerSession: URLSessionProtocol {
    /// The server the requests go to.
    let server: StubServer
    private let session: URLSession

    /// Starts a server for `stubs` and a client for it with `configuration`'s timeout.
    init(_ stubs: StubRegistry, configuration: URLSessionConfiguration) throws {
        server = try StubServer(stubs)
        let client = URLSessionConfiguration.ephemeral
        client.timeoutIntervalForRequest = configuration.timeoutIntervalForRequest
        client.httpCookieStorage = nil
        client.httpShouldSetCookies = false
        client.httpCookieAcceptPolicy = .never
        client.urlCache = nil
        client.requestCachePolicy = .reloadIgnoringLocalCacheData
        // A connection for every request at once, as the other transports take every request
        // at once: held answers would otherwise fill the few a host gets.
        client.httpMaximumConnectionsPerHost = 1_000
        let delegate = ServerSessionDelegate(server)
        session = URLSession(configuration: client, delegate: delegate, delegateQueue: nil)
        delegate.keep(session)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// `request` addressed to the server: its origin swapped for the server's, and named in `Host`.
    func toServer(_ request: URLRequest) -> URLRequest {
        guard let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let host = components.host
        else { return request }
        var addressed = request
        if request.value(forHTTPHeaderField: "Host") == nil {
            addressed.setValue(components.port.map { "\(host):\($0)" } ?? host, forHTTPHeaderField: "Host")
        }
        components.scheme = server.baseURL.scheme
        components.host = server.baseURL.host
        components.port = server.port
        addressed.url = components.url ?? url
        return addressed
    }

    // MARK: URLSessionProtocol, forwarded to the real session

    func makeDataTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any URLSessionDataTaskProtocol {
        session.makeDataTask(with: toServer(request), completionHandler: completionHandler)
    }

    func data(for request: URLRequest, delegate: (any URLSessionTaskDelegate)?) async throws -> (Data, URLResponse) {
        try await session.data(for: toServer(request), delegate: delegate)
    }

    func upload(for request: URLRequest, from bodyData: Data, delegate: (any URLSessionTaskDelegate)?) async throws -> (Data, URLResponse) {
        try await session.upload(for: toServer(request), from: bodyData, delegate: delegate)
    }

    func upload(for request: URLRequest, fromFile fileURL: URL, delegate: (any URLSessionTaskDelegate)?) async throws -> (Data, URLResponse)
    {
        try await session.upload(for: toServer(request), fromFile: fileURL, delegate: delegate)
    }

    func download(for request: URLRequest, delegate: (any URLSessionTaskDelegate)?) async throws -> (URL, URLResponse) {
        try await session.download(for: toServer(request), delegate: delegate)
    }

    /// The real session's stream, relayed so that this session (and its server) lives as long
    /// as the reader reads: on Linux the stream's task runs on a companion session, which keeps
    /// neither alive.
    func chunks(for request: URLRequest) async throws -> (ChunkStream, URLResponse) {
        let (chunks, response) = try await session.chunks(for: toServer(request))
        return (ChunkStream(relaying: KeepingAlive(chunks, owner: self)), response)
    }

    func download(for request: URLRequest, progress: @escaping @Sendable (TransferProgress) -> Void) async throws -> (URL, URLResponse) {
        try await session.download(for: toServer(request), progress: progress)
    }

    func upload(
        for request: URLRequest, fromFile fileURL: URL, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> (Data, URLResponse) {
        try await session.upload(for: toServer(request), fromFile: fileURL, progress: progress)
    }

    func upload(
        for request: URLRequest, from bodyData: Data, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> (Data, URLResponse) {
        try await session.upload(for: toServer(request), from: bodyData, progress: progress)
    }
}

/// Refuses every redirect, so the client hands over the 3xx the server sent; and keeps the
/// session and the server alive until the session is invalidated and its last task has ended
/// (a stream is often read after the ``ServerSession`` that started it is gone).
private final class ServerSessionDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    private let server: StubServer
    private let session = Locked<URLSession?>(nil)

    init(_ server: StubServer) { self.server = server }

    /// Holds `session` until it becomes invalid: the session holds its delegate until then too.
    func keep(_ session: URLSession) { self.session.withLock { $0 = session } }

    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        self.session.withLock { $0 = nil }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// `base`'s chunks, keeping `owner` alive while they are read.
private struct KeepingAlive: AsyncSequence, Sendable {
    typealias Element = Data

    let base: ChunkStream
    let owner: ServerSession

    init(_ base: ChunkStream, owner: ServerSession) {
        self.base = base
        self.owner = owner
    }

    func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator(), owner: owner) }

    struct Iterator: AsyncIteratorProtocol {
        var base: ChunkStream.Iterator
        let owner: ServerSession

        mutating func next() async throws -> Data? { try await base.next() }
    }
}
