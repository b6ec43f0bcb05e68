import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@_spi(Engine) @testable import HTTPClientStubs

#if canImport(FoundationNetworking)
/// What swift-corelibs-foundation does that the stub transports work around (StubURLProtocol.swift
/// lists each reliance). Each test states the corelibs behaviour as it is today: when one fails,
/// corelibs has changed, and the workaround it names can go.
@Suite("corelibs behaviours the stub transports work around", .serialized)
struct CorelibsBehaviourTests {
    /// Answers with `response` lines the test gives: a status, headers, and pieces of body.
    final class ScriptedProtocol: URLProtocol {
        /// What the next request is answered with, and the requests seen: set by the test,
        /// read and appended to on corelibs' threads.
        struct Script: Sendable {
            var status = 200
            var headers: [String: String] = [:]
            var pieces: [Data] = []
            var seen: [URLRequest] = []
        }
        static let script = Locked(Script())
        static var seen: [URLRequest] { script.current.seen }

        override class func canInit(with request: URLRequest) -> Bool { true }
        override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

        override func startLoading() {
            let script = Self.script.withLock { script in
                script.seen.append(request)
                return script
            }
            let response = HTTPURLResponse(
                url: request.url!, statusCode: script.status, httpVersion: "HTTP/1.1", headerFields: script.headers)!
            client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
            for piece in script.pieces { client?.urlProtocol(self, didLoad: piece) }
            client?.urlProtocolDidFinishLoading(self)
        }

        override func stopLoading() {}
    }

    private func session(_ adjust: (URLSessionConfiguration) -> Void = { _ in }) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [ScriptedProtocol.self]
        adjust(configuration)
        return URLSession(configuration: configuration)
    }

    private func script(status: Int = 200, headers: [String: String] = [:], pieces: [String] = []) {
        ScriptedProtocol.script.withLock { $0 = .init(status: status, headers: headers, pieces: pieces.map { Data($0.utf8) }) }
    }

    /// Workaround: `urlProtocolClientsKeepEveryPiece` is false, so only a task of `chunks(for:)`
    /// gets a body in pieces.
    @Test func aCompletionHandlerTaskKeepsOnlyTheLastPieceAProtocolLoads() async throws {
        script(pieces: ["a", "b"])
        let (data, _) = try await session().data(from: testURL("https://h/pieces"))
        #expect(String(decoding: data, as: UTF8.self) == "b")
    }

    /// Workaround: `ProtocolSlots` gives each registry a protocol class of its own, as a protocol
    /// cannot tell the sessions apart by a header of theirs.
    @Test func aSessionsAdditionalHeadersAreNotShownToAProtocol() async throws {
        script()
        _ = try await session { $0.httpAdditionalHeaders = ["X-Session": "one"] }.data(from: testURL("https://h/headers"))
        #expect(ScriptedProtocol.seen.first?.value(forHTTPHeaderField: "X-Session") == nil)
    }

    /// Workaround: the session layer stores a stub's cookies itself.
    @Test func aProtocolsSetCookieDoesNotReachTheCookieStorage() async throws {
        script(headers: ["Set-Cookie": "sid=abc; Path=/"])
        let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "corelibs-canary-\(UUID().uuidString)")
        _ = try await session { $0.httpCookieStorage = storage }.data(from: testURL("https://h/cookie"))
        #expect(storage.cookies(for: testURL("https://h/"))?.isEmpty ?? true)
    }

    /// Workaround: the session layer follows a stub's redirect itself (a protocol's
    /// `wasRedirectedTo` is a fatalError in corelibs, so it cannot be asked to).
    @Test func aRedirectAProtocolAnswersIsDeliveredAsTheFinalResponse() async throws {
        script(status: 302, headers: ["Location": "https://h/new"])
        let (_, response) = try await session().data(from: testURL("https://h/old"))
        #expect((response as? HTTPURLResponse)?.statusCode == 302)
    }

    /// Workaround: an upload task's body is hidden from the stubs (`bodyIsHidden`), and the
    /// client's own file upload sends a body stream instead.
    @Test func anUploadTasksBodyIsNotGivenToAProtocol() async throws {
        script()
        var request = URLRequest(url: testURL("https://h/upload"))
        request.httpMethod = "POST"
        _ = try await session().upload(for: request, from: Data("body".utf8))
        #expect(ScriptedProtocol.seen.first?.httpBody == nil)
        #expect(ScriptedProtocol.seen.first?.httpBodyStream == nil)
    }

    /// Workaround: `chunks(for:)` runs on a companion session whose delegate is the client's
    /// (Platform.swift): corelibs gives a task delegate no callbacks of a delegate task.
    @Test func aTaskDelegateOfADelegateTaskIsNotCalled() async throws {
        final class Counter: NSObject, URLSessionDataDelegate, @unchecked Sendable {
            let calls = Locked(0)
            func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
                calls.withLock { $0 += 1 }
            }
        }
        script(pieces: ["a"])
        let counter = Counter()
        let task = session().dataTask(with: testURL("https://h/delegate"))
        task.delegate = counter
        task.resume()
        // Waits for the task to end (its body loaded), which is when the delegate would have been called.
        let clock = ContinuousClock()
        let deadline = clock.now + eventWait
        while task.state != .completed, clock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(task.state == .completed)
        #expect(counter.calls.current == 0)
    }
}
#endif
