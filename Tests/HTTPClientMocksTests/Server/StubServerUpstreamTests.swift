import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@testable import HTTPClientStubs

/// A StubServer with an upstream: what no stub answers is forwarded, and recorded when asked.
/// The upstream is a second StubServer on loopback (`api`), so nothing leaves the machine.
@Suite("StubServer upstream")
struct StubServerUpstreamTests {
    let folder: TemporaryFolder
    let file: URL
    /// What the real API answers.
    let api = StubRegistry("the real API", reporting: .disabled)
    let apiServer: StubServer
    let log = CollectedLog()

    init() throws {
        folder = try TemporaryFolder()
        file = folder.url.appendingPathComponent("api.json")
        apiServer = try StubServer(api)
        api.stub(.get, "/users/{id}").respond(
            .computed { request in .json(raw: #"{"id": \#(request.pathParameters["id"] ?? "0")}"#, headers: ["X-Api": "yes"]) })
    }

    /// A server over `stubs` (none by default) that forwards to `api` as `upstream` says.
    func front(_ upstream: StubServer.Upstream, stubs: StubRegistry = StubRegistry(reporting: .disabled)) throws -> StubServer {
        try StubServer.serving(stubs) { configuration in
            configuration.upstream = upstream
            configuration.log = log.log
        }
    }

    func recording(_ mode: RecordMode, to file: URL? = nil, redaction: Redaction = .standard) -> StubServer.Upstream {
        StubServer.Upstream(apiServer.baseURL, recordingTo: file ?? self.file, mode: mode, redaction: redaction)
    }

    func get(_ path: String, from server: StubServer, headers: String = "") throws -> RawConnection.Response {
        try RawConnection.get(path, port: server.port, headers: headers)
    }

    // MARK: Forwarding

    @Test func aRequestNoStubAnswersGetsTheUpstreamsAnswer() throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/local").respond(.text("from the stub"))
        let server = try front(.init(apiServer.baseURL), stubs: stubs)
        defer { server.stop() }

        let forwarded = try get("/users/7", from: server)
        let local = try get("/local", from: server)

        #expect(forwarded.status == 200)
        #expect(forwarded.text == #"{"id": 7}"#)
        #expect(forwarded.values("X-Api") == ["yes"])
        #expect(local.text == "from the stub")
        #expect(api.requests.map(\.url.path) == ["/users/7"])
        #expect(stubs.requests.map(\.answerSource) == [.passThrough, .stub])
    }

    @Test func theForwardedRequestKeepsTheClientsHeadersLessHopByHopOnesAndNamesTheUpstreamAsHost() async throws {
        api.stub(.post, "/items").respond(.status(201))
        let server = try front(.init(apiServer.baseURL))
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send(
            "POST /items?b=1&a=2 HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nX-First: 1\r\nConnection: keep-alive, X-Hop\r\n"
                + "X-Hop: dropped\r\nKeep-Alive: timeout=5\r\nProxy-Authorization: Basic YTpi\r\nTE: trailers\r\n"
                + "Content-Type: application/json\r\nX-Last: 2\r\nContent-Length: 2\r\n\r\n{}")
        #expect(try connection.readResponse().status == 201)

        let sent = try #require(api.requests.last)
        #expect(sent.url.query == "b=1&a=2")
        #expect(sent.body == Data("{}".utf8))
        #expect(sent.headers["Host"] == "127.0.0.1:\(apiServer.port)")
        #expect(sent.headers["X-First"] == "1")
        #expect(sent.headers["X-Last"] == "2")
        #expect(sent.headers["Content-Type"] == "application/json")
        for name in ["X-Hop", "Keep-Alive", "Proxy-Authorization", "TE"] { #expect(sent.headers[name] == nil, "\(name)") }
        #expect(try await log.lines(1) == ["POST /items?b=1&a=2 -> 201 (forwarded to \(apiServer.baseURL.absoluteString))"])
    }

    @Test func theUpstreamsPathIsTheServersRoot() throws {
        api.stub(.get, "/v2/users/1").respond(.text("version two"))
        let server = try front(.init(apiServer.baseURL.appendingPathComponent("v2")))
        defer { server.stop() }
        #expect(try get("/users/1", from: server).text == "version two")
    }

    @Test func aRedirectIsPassedOnPointingAtThisServer() throws {
        api.stub(.get, "/old").respond(.status(302, headers: ["Location": "\(apiServer.baseURL.absoluteString)/new"]))
        let server = try front(.init(apiServer.baseURL))
        defer { server.stop() }

        let answer = try get("/old", from: server)

        #expect(answer.status == 302)
        #expect(answer.values("Location") == ["http://127.0.0.1:\(server.port)/new"])
        #expect(api.requests.map(\.url.path) == ["/old"])
    }

    @Test func waitingForTheUpstreamHoldsNoThreadOfTheServer() async throws {
        let gate = HeldResponse()
        api.stub(.get, "/slow").respond(.text("at last").held(by: gate))
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/fast").respond(.text("now"))
        let server = try front(.init(apiServer.baseURL), stubs: stubs)
        defer { server.stop() }
        let port = server.port

        let slow = Task { try await offThePool { try Self.get("/slow", port: port) } }
        try await gate.waitUntilHolding(timeout: eventWait)
        // Connections go to every loop in turn: twice as many as there are loops reach each one.
        for _ in 0..<(2 * ProcessInfo.processInfo.activeProcessorCount) {
            #expect(try get("/fast", from: server).text == "now")
        }
        gate.release()

        #expect(try await slow.value.text == "at last")
    }

    @Test func aClientThatGoesAwayCancelsItsForwardedRequest() async throws {
        let gate = HeldResponse()
        api.stub(.get, "/slow").respond(.text("never read").held(by: gate))
        let apiLog = CollectedLog()
        let upstream = try StubServer.serving(api) { $0.log = apiLog.log }
        defer { upstream.stop() }
        let server = try StubServer.serving(StubRegistry(reporting: .disabled)) { $0.upstream = .init(upstream.baseURL) }
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        try await gate.waitUntilHolding(timeout: eventWait)
        connection.disconnect()

        // The upstream's connection closed under its held answer: the request left the gate.
        #expect(try await apiLog.lines(1) == ["GET /slow -> closed (\(ServerConnection.closedBeforeTheAnswer))"])
        #expect(gate.heldRequests.isEmpty)
    }

    #if canImport(FoundationNetworking)
    /// corelibs makes, resumes and cancels every session's tasks with `sync` on one shared work
    /// queue, and runs a URLProtocol's `startLoading` there. A server whose loop forwarded on that
    /// queue's terms waited for it; when a block on the queue was itself waiting for the server
    /// (a session invalidated there released the last reference to a server, whose stop waits
    /// for its loop), neither ever went on, and every URLSession in the process stopped with them.
    @Test func aServerStopsWhileURLSessionsWorkQueueIsBusyWithAForwardedRequestInFlight() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        let server = try front(.init(apiServer.baseURL), stubs: stubs)
        // On a thread of its own from holding to letting go: while the queue is held, any task
        // of the pool that touches a URLSession waits, and the pool's few threads may all do so.
        let outcome = try await offThePool { () -> String? in
            let holder = WorkQueueHolder()
            guard holder.holdTheWorkQueue() else { return "the protocol never started holding the work queue" }
            defer { holder.release() }
            // Connections are spread over the process's loops, one per core: enough of them
            // that one is on the loop of the server's listener, which stopping waits for.
            let count = 4 * ProcessInfo.processInfo.activeProcessorCount
            let connections = try (0..<count).map { _ in try RawConnection(port: server.port) }
            defer { for connection in connections { connection.disconnect() } }
            for connection in connections { connection.send("GET /users/7 HTTP/1.1\r\nHost: x\r\n\r\n") }
            // The loops have read the requests and gone on to forward them.
            let deadline = Date() + 600
            while stubs.requests.count < count, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
            guard stubs.requests.count == count else { return "\(stubs.requests.count) of \(count) requests arrived" }

            let stopped = DispatchSemaphore(value: 0)
            Thread {
                server.stop()
                stopped.signal()
            }.start()
            return stopped.wait(timeout: .now() + 600) == .success ? nil : "the server did not stop while the work queue was busy"
        }
        #expect(outcome == nil)
    }

    /// Holds corelibs' shared URLSession work queue: a task whose protocol's `startLoading`
    /// (run on that queue) waits until released.
    final class WorkQueueHolder: Sendable {
        final class HoldingProtocol: URLProtocol {
            static let current = Locked<WorkQueueHolder?>(nil)
            override class func canInit(with request: URLRequest) -> Bool { true }
            override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }
            override func startLoading() {
                let holder = Self.current.current
                holder?.started.signal()
                holder?.gate.wait()
                client?.urlProtocol(self, didFailWithError: URLError(.cancelled))
            }
            override func stopLoading() {}
        }

        private let started = DispatchSemaphore(value: 0)
        private let gate = DispatchSemaphore(value: 0)
        private let session: URLSession

        init() {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.protocolClasses = [HoldingProtocol.self]
            session = URLSession(configuration: configuration)
        }

        /// Starts the holding task; whether its protocol holds the queue.
        func holdTheWorkQueue() -> Bool {
            HoldingProtocol.current.withLock { $0 = self }
            session.dataTask(with: URLRequest(url: URL(fileURLWithPath: "/held"))).resume()
            return started.wait(timeout: .now() + 600) == .success
        }

        func release() {
            gate.signal()
            session.finishTasksAndInvalidate()
        }
    }
    #endif

    // MARK: Failures

    @Test func anUnreachableUpstreamIsA502SayingWhy() async throws {
        let gone = try StubServer(StubRegistry(reporting: .disabled))
        let url = gone.baseURL
        gone.stop()
        let server = try front(.init(url))
        defer { server.stop() }

        let answer = try get("/users/1", from: server)

        #expect(answer.status == 502)
        #expect(answer.text.hasPrefix("The upstream gave no answer to \(url.absoluteString)/users/1: "))
        #expect(answer.text.contains("(URLError -1004)"))
        #expect(try await log.lines(1).first?.hasPrefix("GET /users/1 -> 502 (The upstream gave no answer") == true)
    }

    @Test(
        "a body over the limit is a 502 naming the limit, and is not recorded",
        arguments: [
            MockResponse.text(String(repeating: "x", count: 100)),
            .streamed(status: 200, [.data(Data(repeating: 0x78, count: 6)), .data(Data(repeating: 0x78, count: 6))]),
        ])
    func aBodyOverTheLimitIsA502NamingTheLimit(response: MockResponse) async throws {
        api.stub(.get, "/big").respond(response)
        var upstream = recording(.once)
        upstream.maximumBodyBytes = 10
        let server = try front(upstream)
        defer { server.stop() }

        let answer = try get("/big", from: server)

        #expect(answer.status == 502)
        #expect(answer.text.contains("has a body larger than 10 bytes"))
        #expect(answer.text.contains("StubServer.Upstream.maximumBodyBytes"))
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(try await log.lines(1).first?.contains("-> 502 (The upstream's answer to ") == true)
    }

    // MARK: Recording

    @Test func eachForwardedExchangeIsRecordedRedactedAndReplaysWithoutTheUpstream() async throws {
        let server = try front(recording(.once))
        let live = try get("/users/1?api_key=k3y-value", from: server, headers: "Authorization: Bearer t0ken-value\r\n")
        server.stop()

        let recorded = try Cassette(contentsOf: file)
        #expect(recorded.interactions.count == 1)
        let request = try #require(recorded.interactions.first?.request)
        #expect(request.url == "\(apiServer.baseURL.absoluteString)/users/1?api_key=\(Redaction.placeholder)")
        #expect(request.headers.first { $0.name == "Authorization" }?.value == Redaction.placeholder)
        #expect(!(try String(contentsOf: file, encoding: .utf8)).contains("t0ken-value"))
        #expect(
            try await log.lines(1) == [
                "GET /users/1?api_key=\(Redaction.placeholder) -> 200 (recorded from "
                    + "\(apiServer.baseURL.absoluteString) as interaction 1 of \(file.path))"
            ])

        // The upstream is gone: the file answers.
        apiServer.stop()
        let replay = try front(recording(.once))
        defer { replay.stop() }
        let replayed = try get("/users/1?api_key=k3y-value", from: replay)
        #expect(replayed.status == 200)
        #expect(replayed.text == live.text)
        #expect(try await log.lines(2).last?.contains(": replayed interaction 1 of \(file.path))") == true)
    }

    @Test func newEpisodesReplaysWhatTheFileHasAndRecordsWhatItDoesNot() throws {
        let server = try front(recording(.newEpisodes))
        defer { server.stop() }

        #expect(try get("/users/1", from: server).text == #"{"id": 1}"#)
        #expect(try get("/users/2", from: server).text == #"{"id": 2}"#)
        #expect(try get("/users/1", from: server).text == #"{"id": 1}"#)

        // The second /users/1 was answered by its recording.
        #expect(api.requests.map(\.url.path) == ["/users/1", "/users/2"])
        #expect(try Cassette(contentsOf: file).interactions.map(\.request.url).map { URL(string: $0)?.path } == ["/users/1", "/users/2"])
    }

    @Test func replayOnlyForwardsNothing() throws {
        let recorder = try front(recording(.once))
        _ = try get("/users/1", from: recorder)
        recorder.stop()
        let server = try front(recording(.none))
        defer { server.stop() }

        #expect(try get("/users/1", from: server).status == 200)
        #expect(try get("/users/2", from: server).status == 404)
        #expect(api.requests.count == 1)
    }

    @Test func allRecordsEverythingAgainReplacingTheFile() throws {
        let first = try front(recording(.once))
        _ = try get("/users/1", from: first)
        _ = try get("/users/2", from: first)
        first.stop()
        let again = try front(recording(.all))
        defer { again.stop() }

        _ = try get("/users/2", from: again)

        #expect(api.requests.count == 3)
        #expect(try Cassette(contentsOf: file).interactions.map { URL(string: $0.request.url)?.path } == ["/users/2"])
    }

    @Test func anExchangeThatWouldWriteASecretIsAnswered500AndNotRecorded() async throws {
        api.stub(.get, "/gz").respond(.status(200, body: Data([0x1F, 0x8B, 0x08, 0x00, 0x01])))
        let server = try front(recording(.once, redaction: .standard.secret("s3cret")))
        defer { server.stop() }

        let answer = try get("/gz", from: server)

        #expect(answer.status == 500)
        #expect(answer.text.contains("The upstream answered, but the exchange was not recorded"))
        #expect(answer.text.contains("refusing to write the cassette: interaction 1 may still contain a registered secret"))
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(try await log.lines(1).first?.contains("-> 500 (The upstream answered, but the exchange was not recorded") == true)
    }

    @Test func aFileNamedHARIsRecordedAsHAR() throws {
        let har = folder.url.appendingPathComponent("api.har")
        let server = try front(recording(.once, to: har))
        _ = try get("/users/3", from: server)
        server.stop()

        let recorded = try Cassette(harContentsOf: har)
        #expect(recorded.interactions.map(\.response.body?.text) == [#"{"id": 3}"#])
    }

    @Test func aRecordingThatCannotBeReadStopsTheServerFromStarting() throws {
        try Data("{not a cassette".utf8).write(to: file)
        #expect(throws: CassetteError.self) { try front(recording(.newEpisodes)) }
        #expect {
            try front(recording(.none, to: folder.url.appendingPathComponent("missing.json")))
        } throws: { "\($0)".contains("missing.json: the cassette cannot be read (there is no cassette here") }
    }

    /// One request on a connection of its own, for a test that waits for it off the pool.
    static func get(_ path: String, port: Int) throws -> RawConnection.Response {
        try RawConnection.get(path, port: port, readTimeout: 60)
    }
}
