import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient

/// What an app's session delegate decides: whether redirects are followed, and the credential
/// for a challenge. It counts what it was asked.
final class DecidingDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    let followsRedirects: Bool
    let redirects = Locked(0)
    let challenges = Locked(0)

    init(followsRedirects: Bool = true) {
        self.followsRedirects = followsRedirects
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        redirects.withLock { $0 += 1 }
        completionHandler(followsRedirects ? request : nil)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        challenges.withLock { $0 += 1 }
        guard challenge.previousFailureCount == 0 else { return completionHandler(.cancelAuthenticationChallenge, nil) }
        completionHandler(.useCredential, URLCredential(user: "app", password: "pinned", persistence: .forSession))
    }
}

/// Streams and progress transfers run on the session the app passed in: its delegate decides
/// redirects and answers challenges, as it does for the app's own tasks.
@Suite("The app's own session and its delegate")
struct AppSessionTests {
    let stubs = StubRegistry()
    let server: StubServer

    init() throws {
        stubs.stub(.get, "/moved").respond(.status(302, headers: ["Location": "/new"])).allowingUnused()
        stubs.stub(.post, "/moved").respond(.status(302, headers: ["Location": "/new"])).allowingUnused()
        stubs.stub(where: .path("/new")).respond(.text("followed")).allowingUnused()
        // Newest first: the answer for the right credential comes before the challenge.
        stubs.stub(where: .path("/private")).respond(.status(401, headers: ["WWW-Authenticate": "Basic realm=\"app\""]))
            .allowingUnused()
        stubs.stub(where: .path("/private")).matching(.header("Authorization", "Basic YXBwOnBpbm5lZA==")).respond(.text("welcome"))
            .allowingUnused()
        server = try StubServer(stubs)
    }

    private func request(_ path: String, method: String = "GET") -> URLRequest {
        var request = URLRequest(url: server.baseURL.appendingPathComponent(path))
        request.httpMethod = method
        request.timeoutInterval = 30
        return request
    }

    private func status(_ response: URLResponse) -> Int? {
        (response as? HTTPURLResponse)?.statusCode
    }

    private func text(_ chunks: ChunkStream) async throws -> String {
        var body = Data()
        for try await chunk in chunks { body.append(chunk) }
        return String(decoding: body, as: UTF8.self)
    }

    private func file() throws -> (ScratchFolder, URL) {
        let folder = try ScratchFolder()
        return (folder, try folder.write("the file", to: "upload.txt"))
    }

    @Test func aStreamsRedirectIsTheSessionDelegatesDecision() async throws {
        let delegate = DecidingDelegate(followsRedirects: false)
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }

        let (chunks, response) = try await session.chunks(for: request("moved"))
        _ = try await text(chunks)

        #expect(status(response) == 302)
        #expect(delegate.redirects.current == 1)
    }

    @Test func aStreamIsFollowedWhereTheDelegateAllowsIt() async throws {
        let delegate = DecidingDelegate(followsRedirects: true)
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }

        let (chunks, response) = try await session.chunks(for: request("moved"))

        #expect(status(response) == 200)
        #expect(try await text(chunks) == "followed")
        #expect(delegate.redirects.current == 1)
    }

    @Test func aProgressDownloadsRedirectIsTheSessionDelegatesDecision() async throws {
        let delegate = DecidingDelegate(followsRedirects: false)
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }

        let (file, response) = try await session.download(for: request("moved")) { _ in }
        defer { unlink(file.path) }

        #expect(status(response) == 302)
        #expect(delegate.redirects.current == 1)
    }

    @Test func aProgressUploadsRedirectIsTheSessionDelegatesDecision() async throws {
        let delegate = DecidingDelegate(followsRedirects: false)
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let (folder, file) = try file()
        defer { withExtendedLifetime(folder) {} }

        let (_, fromData) = try await session.upload(for: request("moved", method: "POST"), from: Data("bytes".utf8)) { _ in }
        let (_, fromFile) = try await session.upload(for: request("moved", method: "POST"), fromFile: file) { _ in }

        #expect(status(fromData) == 302)
        #expect(status(fromFile) == 302)
        #expect(delegate.redirects.current == 2)
    }

    @Test func aStreamsChallengeIsAnsweredByTheSessionDelegate() async throws {
        let delegate = DecidingDelegate()
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }

        let (chunks, response) = try await session.chunks(for: request("private"))

        #expect(status(response) == 200)
        #expect(try await text(chunks) == "welcome")
        #expect(delegate.challenges.current == 1)
    }

    @Test func aProgressTransfersChallengeIsAnsweredByTheSessionDelegate() async throws {
        let delegate = DecidingDelegate()
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }

        let (file, downloaded) = try await session.download(for: request("private")) { _ in }
        defer { unlink(file.path) }
        let (body, uploaded) = try await session.upload(for: request("private", method: "POST"), from: Data("x".utf8)) { _ in }
        let (folder, source) = try self.file()
        defer { withExtendedLifetime(folder) {} }
        let (fileBody, fileUploaded) = try await session.upload(for: request("private", method: "POST"), fromFile: source) { _ in }

        #expect(status(downloaded) == 200)
        #expect(try String(contentsOf: file, encoding: .utf8) == "welcome")
        #expect(status(uploaded) == 200)
        #expect(String(decoding: body, as: UTF8.self) == "welcome")
        #expect(status(fileUploaded) == 200)
        #expect(String(decoding: fileBody, as: UTF8.self) == "welcome")
        #expect(delegate.challenges.current == 3)
    }

    @Test func theClientsStreamGoesThroughTheSessionsDelegate() async throws {
        let delegate = DecidingDelegate(followsRedirects: false)
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        var client = HTTPClient(session: session, baseURL: server.baseURL)
        client.validation = .acceptAll

        let stream = try await client.stream(.get("moved"))

        #expect(stream.head.statusCode == 302)
        #expect(delegate.redirects.current == 1)
    }
}
