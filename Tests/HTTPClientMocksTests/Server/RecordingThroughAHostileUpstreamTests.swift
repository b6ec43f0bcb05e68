import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@testable import HTTPClientStubs

/// A `StubServer` recording through an upstream that misbehaves (too big, never done, not HTTP,
/// redirecting to itself, leaking secrets), to a file that is not a plain file: the client gets
/// an answer that says what happened, the server never hangs, and the file is always one that
/// can be read back (or none), with nothing secret in it.
@Suite("Recording through a hostile upstream")
struct RecordingThroughAHostileUpstreamTests {
    let folder: TemporaryFolder
    let file: URL
    let api = StubRegistry("the real API", reporting: .disabled)
    let apiServer: StubServer
    let log = CollectedLog()

    init() throws {
        folder = try TemporaryFolder()
        file = folder.url.appendingPathComponent("api.json")
        apiServer = try StubServer(api)
    }

    private func front(
        to upstream: URL? = nil, recordingTo target: URL? = nil, mode: RecordMode = .once, timeout: TimeInterval = 60
    )
        throws -> StubServer
    {
        var forward = StubServer.Upstream(upstream ?? apiServer.baseURL, recordingTo: target ?? file, mode: mode)
        forward.timeout = timeout
        return try StubServer.serving(StubRegistry(reporting: .disabled)) { configuration in
            configuration.upstream = forward
            configuration.log = log.log
        }
    }

    private func get(_ path: String, from server: StubServer, headers: String = "") async throws -> RawConnection.Response {
        let port = server.port
        return try await offThePool { try RawConnection.get(path, port: port, headers: headers, readTimeout: 60) }
    }

    // MARK: Upstreams that misbehave

    @Test func anUpstreamThatSendsNoHTTPIsA502AndNothingIsRecorded() async throws {
        let upstream = try LoopbackServer { _ in Data("SSH-2.0-OpenSSH_9.2\r\n\r\nnot http at all".utf8) }
        defer { upstream.stop() }
        let server = try front(to: upstream.url)
        defer { server.stop() }

        let answer = try await get("/x", from: server)

        #expect(answer.status == 502)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    /// An upstream quiet before its head, or in the middle of its body: `timeout` (1 s here)
    /// ends the wait with a 502 while the upstream still holds the connection open (it lets go
    /// only after a failsafe far past the timeout, or once the test has its answer).
    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nthe start", "",
    ])
    func anUpstreamThatGoesQuietIsA502AfterItsTimeoutAndNothingIsRecorded(sentBeforeQuiet: String) async throws {
        let release = DispatchSemaphore(value: 0)
        let letGo = Locked(false)
        let upstream = try LoopbackServer(
            respond: { _ in Data(sentBeforeQuiet.utf8) },
            afterWriting: {
                _ = release.wait(timeout: .now() + 600)
                letGo.withLock { $0 = true }
            })
        defer {
            release.signal()
            upstream.stop()
        }
        let server = try front(to: upstream.url, timeout: 1)
        defer { server.stop() }

        let answer = try await get("/x", from: server)
        let answeredWhileQuiet = !letGo.current

        #expect(answer.status == 502)
        // The upstream holds its answer for ten minutes (the test lets it go when it ends): the
        // 502 comes from the server's own one-second timer, however slow the run.
        #expect(answeredWhileQuiet)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func stopReturnsPromptlyWhileAnUpstreamTricklesAnEndlessBody() async throws {
        let endless = api.stub(.get, "/endless").respond(
            .status(200, body: Data(repeating: 0x65, count: 10_000_000)).throttled(to: .oneKilobytePerSecond))
        let server = try front()
        let port = server.port
        let connection = try RawConnection(port: port)
        connection.send("GET /endless HTTP/1.1\r\nHost: x\r\n\r\n")
        try await endless.waitForRequests(1, timeout: eventWait)

        let stopped = Milestones()
        Thread.detachNewThread {
            server.stop()
            stopped.advance()
        }
        try await stopped.wait(until: 1, timeout: eventWait, waitingFor: "stop() while the upstream trickles")

        #expect(try await offThePool { connection.readToEnd().ending } != .open)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func aRedirectToItselfIsPassedOnOnceAndNotFollowed() async throws {
        let loop = api.stub(.get, "/loop").respond(
            .status(302, headers: ["Location": apiServer.baseURL.appendingPathComponent("loop").absoluteString]))
        let server = try front()

        let answer = try await get("/loop", from: server)
        server.stop()

        #expect(answer.status == 302)
        #expect(answer.values("Location") == ["http://127.0.0.1:\(server.port)/loop"])
        #expect(loop.callCount == 1)
        let replay = try front(mode: .none)
        defer { replay.stop() }
        #expect(try await get("/loop", from: replay).status == 302)
    }

    @Test(arguments: [999, 42, 600])
    func anUpstreamStatusNoCassetteCanHoldIsAnsweredAsAnErrorAndNotRecorded(status: Int) async throws {
        api.stub(.get, "/odd").respond(.status(status))
        api.stub(.get, "/fine").respond(.text("fine"))
        let server = try front()

        let odd = try await get("/odd", from: server)
        let fine = try await get("/fine", from: server)
        server.stop()

        // Written, the exchange would make the whole file unreadable, and the next run could not
        // start on it: the client is told instead, and the file keeps what it can hold.
        #expect(odd.status >= 500)
        #expect(fine.text == "fine")
        #expect(try Cassette(contentsOf: file).interactions.map { URL(string: $0.request.url)?.path } == ["/fine"])
        let next = try front(mode: .once)
        defer { next.stop() }
        #expect(try await get("/fine", from: next).text == "fine")
    }

    // MARK: Secrets

    @Test(arguments: ["api.json", "api.har"])
    func secretsTheUpstreamAndTheClientExchangeAreNeverWritten(name: String) async throws {
        let target = folder.url.appendingPathComponent(name)
        api.stub(.get, "/login").respond(
            .computed { request in
                .status(
                    200,
                    headers: [
                        "Set-Cookie": "session=cookieSECRET4242; Path=/; HttpOnly",
                        "X-Api-Key": "apikeySECRET5151",
                        "Authorization": "Bearer upstreamSECRET6161",
                        "Location": "/after?access_token=locationSECRET7171",
                        "Content-Location": "https://api.example.com/me#id_token=fragmentSECRET1212",
                    ],
                    body: Data(
                        #"{"echo": "\#(request.headers["Authorization"] ?? "")", "cookie": "\#(request.headers["Cookie"] ?? "")", "refresh_token": "bodySECRET8181"}"#
                            .utf8))
            })
        let server = try front(recordingTo: target)

        let answer = try await get(
            "/login?api_key=querySECRET9191", from: server,
            headers:
                "Authorization: Bearer clientSECRET1010\r\nCookie: sid=clientCookieSECRET2020\r\nProxy-Authorization: Basic cHJveHk6cHJveHlTRUNSRVQzMDMw\r\n"
        )
        server.stop()

        #expect(answer.status == 200)
        let written = try String(decoding: Data(contentsOf: target), as: UTF8.self)
        for secret in [
            "cookieSECRET4242", "apikeySECRET5151", "upstreamSECRET6161", "locationSECRET7171", "fragmentSECRET1212", "bodySECRET8181",
            "querySECRET9191",
            "clientSECRET1010", "clientCookieSECRET2020", "cHJveHk6cHJveHlTRUNSRVQzMDMw", "proxySECRET3030",
        ] {
            #expect(!written.contains(secret), "\(secret) was written to \(name)")
        }
    }

    // MARK: Files that are not plain files

    @Test(arguments: [RecordMode.once, .all, .newEpisodes])
    func aRecordFileThatIsADirectoryIsRefusedAndLeftAlone(mode: RecordMode) async throws {
        api.stub(.get, "/x").respond(.text("x"))
        let directory = folder.url.appendingPathComponent("api.json")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: directory.appendingPathComponent("inside.txt"))

        do {
            let server = try front(recordingTo: directory, mode: mode)
            defer { server.stop() }
            let answer = try await get("/x", from: server)
            // Not recorded: the client is told, not answered as if it had been.
            #expect(answer.status >= 500, "answered \(answer.status) without recording")
        } catch {
            #expect("\(error)".contains("api.json"))
        }

        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) && isDirectory.boolValue)
        #expect(try Data(contentsOf: directory.appendingPathComponent("inside.txt")) == Data("keep me".utf8))
    }

    @Test func aRecordFileInAPlaceThatCannotHoldFilesIsAnswered500() async throws {
        api.stub(.get, "/x").respond(.text("x"))
        let notAFolder = folder.url.appendingPathComponent("plain")
        try Data("a file".utf8).write(to: notAFolder)

        do {
            let server = try front(recordingTo: notAFolder.appendingPathComponent("api.json"), mode: .once)
            defer { server.stop() }
            let answer = try await get("/x", from: server)
            #expect(answer.status == 500, "answered \(answer.status) without recording")
        } catch {
            #expect("\(error)".contains("api.json"))
        }
        #expect(try Data(contentsOf: notAFolder) == Data("a file".utf8))
    }

    @Test func aRecordFileThatIsALinkIsWrittenThroughAndStaysALink() async throws {
        api.stub(.get, "/x").respond(.text("x"))
        api.stub(.get, "/y").respond(.text("y"))
        let elsewhere = try TemporaryFolder()
        let target = elsewhere.url.appendingPathComponent("real.json")
        let first = try front(recordingTo: target, mode: .all)
        _ = try await get("/x", from: first)
        first.stop()
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: target)

        let server = try front(mode: .newEpisodes)
        _ = try await get("/y", from: server)
        server.stop()

        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: file.path)) == target.path)
        #expect(try Cassette(contentsOf: target).interactions.map { URL(string: $0.request.url)?.path } == ["/x", "/y"])
    }

    @Test func aRecordFileThatIsALinkToNothingIsRefusedNamingIt() throws {
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: folder.url.appendingPathComponent("gone/real.json"))

        #expect { try front(mode: .all) } throws: { "\($0)".contains("api.json") }
    }

    @Test(.timeLimit(.minutes(10)))
    func aRecordFileThatIsAFIFOIsRefusedWithoutWaitingForAWriter() async throws {
        guard mkfifo(file.path, 0o600) == 0 else { throw POSIXError(.EIO) }
        let outcome = Locked<String?>(nil)
        let done = Milestones()
        let server = Locked<StubServer?>(nil)
        Thread.detachNewThread { [self] in
            do {
                let started = try front(mode: .once)
                server.withLock { $0 = started }
                outcome.withLock { $0 = "started" }
            } catch {
                outcome.withLock { $0 = "\(error)" }
            }
            done.advance()
        }
        defer {
            // Frees a reader stuck opening the FIFO: a writer that comes and goes.
            let writer = open(file.path, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
            server.withLock { $0?.stop() }
        }

        try await done.wait(until: 1, timeout: .seconds(20), waitingFor: "the server to start on a FIFO, or refuse it")

        #expect(outcome.current != "started")
        #expect(outcome.current?.contains("api.json") == true)
    }

    // MARK: Stopping mid-recording, and many recordings at once

    @Test func stoppingWhileAnExchangeIsForwardedLeavesAFileThatReadsBack() async throws {
        let gate = HeldResponse()
        api.stub(.get, "/quick").respond(.text("quick"))
        api.stub(.get, "/held").respond(.text("held").held(by: gate))
        let server = try front(mode: .all)
        _ = try await get("/quick", from: server)
        let port = server.port
        let connection = try RawConnection(port: port)
        connection.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n")
        try await gate.waitUntilHolding(timeout: eventWait)

        server.stop()
        gate.release()
        _ = try await offThePool { connection.readToEnd() }

        let recorded = try Cassette(contentsOf: file)
        #expect(recorded.interactions.map { URL(string: $0.request.url)?.path } == ["/quick"])
    }

    @Test func concurrentExchangesAreAllRecorded() async throws {
        api.stub(.get, "/item/{id}").respond(.computed { request in .text(request.pathParameters["id"] ?? "") })
        let server = try front(mode: .all)
        let port = server.port

        let answers = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<32 {
                group.addTask { try await RecordingThroughAHostileUpstreamTests.fetch("/item/\(index)", port: port) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        server.stop()

        #expect(answers.sorted() == (0..<32).map(String.init).sorted())
        let recorded = try Cassette(contentsOf: file)
        #expect(Set(recorded.interactions.compactMap { URL(string: $0.request.url)?.lastPathComponent }) == Set((0..<32).map(String.init)))
    }

    private static func fetch(_ path: String, port: Int) async throws -> String {
        try await offThePool { try StubServerUpstreamTests.get(path, port: port).text }
    }

    // MARK: HAR round trips of odd bodies

    static let oddBodies: [(name: String, contentType: String, body: Data)] = [
        ("binary", "application/octet-stream", Data((0...255).map { UInt8($0) })),
        ("empty", "text/plain", Data()),
        ("not-utf8", "text/plain; charset=utf-8", Data([0x61, 0xC3, 0x28, 0xFF, 0xFE, 0x62, 0xED, 0xA0, 0x80])),
        ("utf16", "text/plain; charset=utf-16", Data("héllo".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })),
        ("nul", "application/json", Data(#"{"a":"\u0000"}"#.utf8) + Data([0x00])),
        ("base64-looking", "text/plain", Data("aGVsbG8=".utf8)),
        ("big", "application/octet-stream", Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })),
    ]

    @Test(arguments: 0..<oddBodies.count)
    func aRecordingExportedToHARAndImportedBackAnswersTheSameBytes(index: Int) async throws {
        let (name, contentType, body) = Self.oddBodies[index]
        let longValue = String(repeating: "v", count: 16_000)
        api.stub(.get, "/\(name)").respond(.status(200, headers: ["Content-Type": contentType, "X-Long": longValue], body: body))
        let server = try front()
        let live = try await get("/\(name)", from: server)
        server.stop()
        #expect(live.body == body)

        let har = try Cassette(contentsOf: file).harData(redaction: .none)
        let imported = try Cassette(harData: har, file: "odd.har")
        let stubs = StubRegistry(reporting: .disabled)
        stubs.replay(imported)
        let (data, response) = try await MockURLSession(stubs: stubs).data(
            for: URLRequest(url: apiServer.baseURL.appendingPathComponent(name)))

        #expect(data == body)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Long") == longValue)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == contentType)
    }

    @Test func aHARRecordingOfOddBodiesReplaysTheSameBytes() async throws {
        let har = folder.url.appendingPathComponent("odd.har")
        for (name, contentType, body) in Self.oddBodies {
            api.stub(.get, "/\(name)").respond(.status(200, headers: ["Content-Type": contentType], body: body))
        }
        let recorder = try front(recordingTo: har, mode: .all)
        for (name, _, _) in Self.oddBodies { _ = try await get("/\(name)", from: recorder) }
        recorder.stop()
        apiServer.stop()

        let replay = try front(recordingTo: har, mode: .none)
        defer { replay.stop() }
        for (name, _, body) in Self.oddBodies {
            let answer = try await get("/\(name)", from: replay)
            #expect(answer.status == 200, "\(name)")
            #expect(answer.body == body, "\(name)")
        }
    }
}
