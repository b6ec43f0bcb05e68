import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@_spi(Engine) @testable import HTTPClientStubs

/// `StubServer` against a hostile client and a careless user on loopback, who know only the
/// README and the article: answers nobody reads, lenient heads, absurd lengths, floods of
/// connections, a blocked log, unreadable fixtures, uploads of megabytes. Each test states the
/// behaviour a user may expect.
@Suite("StubServer against a hostile client or a careless user")
struct StubServerHostileClientTests {
    let failures = CollectedFailures()
    let stubs: StubRegistry

    init() {
        stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/a").respond(.text("A"))
        stubs.stub(.post, "/a").respond(.text("posted"))
    }

    private func server(_ adjust: (inout StubServer.Configuration) -> Void = { _ in }) throws -> StubServer {
        try StubServer.serving(stubs, adjust)
    }

    // MARK: - Memory: answers nobody reads

    /// A client pipelines 100 requests for a 1 MB body and reads nothing. The kernel's socket
    /// buffers hold a few dozen MB at most, so a server that stops reading while its answers
    /// cannot be sent produces far fewer than 100 answers. Measured with `httpc serve` reading on
    /// regardless: such a client took the server from 31 MB to 6.7 GB resident in 20 s (every
    /// answer buffered in memory) until it went away; the server now stops reading while more
    /// than a megabyte of answers waits.
    @Test func answersAClientDoesNotReadAreNotBufferedWithoutBound() async throws {
        stubs.stub(.get, "/big").respond(.text(String(repeating: "x", count: 1_048_576)))
        let logged = Milestones()
        let server = try server { configuration in
            configuration.log = { _ in logged.advance() }
            // However slow the run, the client is not given up for taking nothing meanwhile.
            configuration.idleTimeout = 600
        }
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send(String(repeating: "GET /big HTTP/1.1\r\nHost: x\r\n\r\n", count: 100))

        // Without back-pressure all 100 answers are made in about 0.3 s; with it, the server
        // stops reading after about a megabyte nobody took, and this wait runs out.
        let answeredAllWithoutAReader: Bool
        do {
            try await logged.wait(until: 100, timeout: .seconds(10), waitingFor: "100 answers nobody reads")
            answeredAllWithoutAReader = true
        } catch is StubWaitError {
            answeredAllWithoutAReader = false
        }
        #expect(!answeredAllWithoutAReader)
        // Once the client reads, every answer comes, in order and whole.
        let answers = try await offThePool {
            try (0..<100).map { _ in try connection.readResponse() }.map { [$0.status, $0.body.count] }
        }
        #expect(answers == Array(repeating: [200, 1_048_576], count: 100))
        connection.disconnect()
        #expect(try server.stillServes())
    }

    /// An upload of megabytes takes a while to match, hash and report (seconds in a debug
    /// build). It is decided on another thread: the loop it came in on goes on serving its other
    /// connections meanwhile.
    @Test func aLargeUploadBeingDecidedHoldsUpNoOtherConnection() async throws {
        let body = String(repeating: "u", count: 256 * 1024)
        try await expectOtherConnectionsAnswered(whileDeciding: .post, "/upload") { upload in
            upload.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
        }
    }

    /// A request with a head of tens of kilobytes (a long query, hundreds of header lines) is
    /// decided on another thread as a large upload is: while the stubs take their time over it,
    /// every other connection of its loop is answered.
    @Test(arguments: ["a long query", "many header lines"])
    func aLargeHeadBeingDecidedHoldsUpNoOtherConnection(_ shape: String) async throws {
        try await expectOtherConnectionsAnswered(whileDeciding: .get, "/search") { large in
            if shape == "a long query" {
                large.send(
                    "GET /search?q=\(String(repeating: "q", count: ServerConnection.decidedOffTheLoopHeadBytes)) HTTP/1.1\r\nHost: x\r\n\r\n"
                )
            } else {
                large.send("GET /search HTTP/1.1\r\nHost: x\r\n\(Self.largeHeaderLines)\r\n")
            }
        }
    }

    /// 100 header lines of 16 KB in all: a head decided off the loop, well under the limit of
    /// 256 lines.
    private static let largeHeaderLines = (0..<100).map {
        "X-Line-\($0): \(String(repeating: "h", count: ServerConnection.decidedOffTheLoopHeadBytes / 100))\r\n"
    }
    .joined()

    /// Sends (by `send`) a request that the stub for `method` `path` blocks on until every other
    /// request is answered, and expects connections on every loop to be answered meanwhile, then
    /// the request itself (201). Were it decided on its loop, that loop's connections would get
    /// no answer.
    private func expectOtherConnectionsAnswered(
        whileDeciding method: HTTPMethod, _ path: String, send: (RawConnection) -> Void
    ) async throws {
        let deciding = Milestones()
        let release = DispatchSemaphore(value: 0)
        stubs.stub(method, StubTarget(path)).respond(
            .computed { _ in
                deciding.advance()
                release.wait()
                return .status(201)
            })
        let server = try server()
        defer { server.stop() }
        defer { release.signal() }
        let decided = try RawConnection(port: server.port, readTimeout: 60)
        send(decided)
        try await deciding.wait(until: 1, timeout: eventWait, waitingFor: "\(method) \(path) being decided")

        // Connections go to the loops in turn: twice as many as there are loops, and the
        // request's loop gets some of them.
        let loops = try EventLoopGroup.shared.get().loops.count
        let others = try await offThePool {
            try (0..<(2 * loops + 1)).map { _ in try RawConnection.get("/a", port: server.port, readTimeout: 60).status }
        }
        release.signal()

        #expect(others == Array(repeating: 200, count: 2 * loops + 1))
        #expect(try await offThePool { try decided.readResponse() }.status == 201)
    }

    /// A large request the server answers itself (a method no stub answers, a target that makes
    /// no URL) is answered as a small one is, and the requests behind it after it.
    @Test func aLargeRequestTheServerAnswersItselfKeepsItsPlaceInLine() async throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port, readTimeout: 60)
        connection.send(
            "PURGE /a HTTP/1.1\r\nHost: x\r\n\(Self.largeHeaderLines)\r\n" + "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET http://[bad/\(String(repeating: "q", count: ServerConnection.decidedOffTheLoopHeadBytes)) HTTP/1.1\r\nHost: x\r\n\r\n"
        )
        let statuses = try await offThePool { try (0..<3).map { _ in try connection.readResponse().status } }
        #expect(statuses == [501, 200, 400])
    }

    /// Requests pipelined after an upload decided on another thread reach the stubs after it,
    /// in the order they came.
    @Test func requestsPipelinedAfterALargeUploadReachTheStubsInOrder() async throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port, readTimeout: 60)
        let body = String(repeating: "u", count: 256 * 1024)
        connection.send(
            "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
                + String(repeating: "GET /a HTTP/1.1\r\nHost: x\r\n\r\n", count: 3))
        let statuses = try await offThePool { try (0..<4).map { _ in try connection.readResponse().status } }
        #expect(statuses == [200, 200, 200, 200])
        #expect(stubs.requests.map(\.method) == [.post, .get, .get, .get])
    }

    /// A client that sends an upload and a request behind it, then ends its sending side
    /// (`nc -N`), gets both answers: its input ending while the upload waits to be decided on
    /// another thread lets go of nothing that gets decided. Twenty times: the end of the input
    /// reaches the loop before or after the decision starts, as the threads happen to run.
    @Test func aClientThatEndsItsSendingSideAfterAnUploadGetsEveryAnswer() async throws {
        let server = try server()
        defer { server.stop() }
        let body = String(repeating: "u", count: ServerConnection.decidedOffTheLoopBytes)
        let answers = try await offThePool {
            try (0..<20).map { _ in
                let connection = try RawConnection(port: server.port, readTimeout: 60)
                connection.send(
                    "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
                        + "GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
                connection.finishSending()
                return try (0..<2).map { _ in try connection.readResponse().text }
            }
        }
        #expect(answers == Array(repeating: ["posted", "A"], count: 20))
    }

    /// A client slower to read than the read timeout: while the server waits for it to take
    /// the answers, it reads none of the requests behind them (past 64 waiting answers, or a
    /// megabyte unsent), and the read timeout (meant for a client slow to send) does not run.
    /// Were the read timeout to run, the requests left unread in the pause would be answered 408
    /// once it had passed since the pause.
    @Test func aClientSlowerToReadThanTheReadTimeoutGetsEveryAnswer() async throws {
        stubs.stub(.get, "/big").respond(.text(String(repeating: "x", count: 256 * 1024)))
        let server = try server { configuration in
            configuration.readTimeout = 0.2
            // However slow the run, the client is not given up for taking nothing meanwhile.
            configuration.idleTimeout = 600
        }
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send(String(repeating: "GET /big HTTP/1.1\r\nHost: x\r\n\r\n", count: 100))

        // The slowness under test: the client takes nothing for longer than the read timeout.
        try await Task.sleep(for: .milliseconds(800))
        let answers = try await offThePool {
            try (0..<100).map { _ in try connection.readResponse() }.map { [$0.status, $0.body.count] }
        }
        #expect(answers == Array(repeating: [200, 256 * 1024], count: 100))
    }

    /// A client that takes none of the answers waiting for it is given up after the idle
    /// timeout, so it cannot hold a connection (and the answers buffered for it) for ever.
    /// The read timeout (30 s by default) cannot do it: its 408 would wait behind the answers
    /// nobody takes.
    @Test func aClientThatTakesNoAnswerForTheIdleTimeoutIsDisconnected() async throws {
        stubs.stub(.get, "/big").respond(.text(String(repeating: "x", count: 256 * 1024)))
        let server = try server { $0.idleTimeout = 0.3 }
        defer { server.stop() }
        let connection = try RawConnection(port: server.port, readTimeout: 30)
        connection.send(String(repeating: "GET /big HTTP/1.1\r\nHost: x\r\n\r\n", count: 100))

        // The stall under test: longer than the idle timeout, with nothing read.
        try await Task.sleep(for: .seconds(2))
        let read = try await offThePool { connection.readUntilClosed() }
        #expect(read.ended)
        #expect(read.count < 100 * 256 * 1024)
        #expect(try server.stillServes())
    }

    // MARK: - Leniency in the request head

    /// Methods are case-sensitive (RFC 9110 §9.1): `get` is not `GET`, and must not be
    /// answered by a GET stub. It is answered 501 Not Implemented, and the stub never sees it.
    @Test func aLowerCaseMethodIsNotAnsweredByAGetStub() throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send("get /a HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 501)
        #expect(stubs.requests.isEmpty)
    }

    /// A chunk size is `1*HEXDIG` followed by an extension or CRLF (RFC 9112 §7.1); whitespace
    /// after it is one of the differences between readers that smuggling uses, which the
    /// article says are 400. A lenient reader takes `3 ` as 3.
    @Test func whitespaceAfterAChunkSizeIsA400AndAClose() throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send("POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3 \r\nabc\r\n0\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 400)
        #expect(connection.isClosedByServer())
        #expect(try server.stillServes())
    }

    /// RFC 9112 §3.2: a server must answer 400 to a request whose Host is not a valid
    /// `uri-host[:port]`: `Host: a b` never reaches the stub.
    @Test func aHostWithASpaceIsA400() throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send("GET /a HTTP/1.1\r\nHost: a b\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 400)
    }

    // MARK: - Hostile heads, lengths and floods of connections

    /// Lengths a hostile client sends: past any integer, signed, hexadecimal, with a space.
    @Test(arguments: [
        ("99999999999999999999999999", 413), ("+3", 400), ("-1", 400), ("0x3", 400), ("1 2", 400),
    ])
    func anAbsurdContentLengthIsRefusedAndClosed(length: String, status: Int) throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: \(length)\r\n\r\nabc")
        #expect(try connection.readResponse().status == status)
        #expect(connection.isClosedByServer())
        #expect(stubs.requests.isEmpty)
        #expect(try server.stillServes())
    }

    /// A NUL or another control byte in the target or a header value is a 400, never a request.
    @Test(arguments: [
        "GET /a\u{0}b HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /a HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}b\r\n\r\n",
        "GET /a HTTP/1.1\r\nHost: x\r\nX-A: a\u{7F}b\r\n\r\n",
    ])
    func aNulOrControlByteIsA400(text: String) throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send(text)
        #expect(try connection.readResponse().status == 400)
        #expect(connection.isClosedByServer())
        #expect(stubs.requests.isEmpty)
    }

    /// A `Content-Length` in the trailer of a chunked body does not frame anything: the next
    /// bytes are the next request.
    @Test func aContentLengthInAChunkedTrailerFramesNothing() throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send(
            "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nContent-Length: 5\r\n\r\n"
                + "GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try connection.readResponse().text == "posted")
        #expect(try connection.readResponse().text == "A")
    }

    /// The unmatched report sent as the 404 body hides credentials from headers and the query.
    @Test func theUnmatchedReportHidesCredentials() throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send(
            "GET /nothing?token=SECRETQ1&api_key=SECRETQ2&password=SECRETQ3 HTTP/1.1\r\nHost: x\r\n"
                + "Authorization: Bearer SECRETH1\r\nCookie: session=SECRETC1\r\n"
                + "Proxy-Authorization: Basic SECRETH2\r\nX-Api-Key: SECRETH3\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 404)
        #expect(response.text.contains("Unmatched request"))
        #expect(!response.text.contains("SECRET"))
        #expect(!failures.all.joined().contains("SECRET"))
    }

    /// Credentials under the names OAuth, JWT and session cookies give them (`?jwt=`, OAuth's
    /// `?code=`, `?auth=`, `?sid=`, an `Authentication:` header) are hidden in the 404 report and
    /// in the log line, as the common names are.
    @Test func theUnmatchedReportAndTheLogHideCredentialsUnderOAuthAndSessionNames() async throws {
        let logged = CollectedLog()
        let server = try server { configuration in configuration.log = logged.log }
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send(
            "GET /nothing?jwt=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.SECRETJWT&code=SECRETCODE&auth=SECRETAUTH&sid=SECRETSID"
                + "&state=kept-state HTTP/1.1\r\nHost: x\r\nAuthentication: SECRETHEADER\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 404)
        #expect(response.text.contains("Unmatched request"))
        #expect(response.text.contains("jwt=REDACTED&code=REDACTED&auth=REDACTED&sid=REDACTED&state=kept-state"))
        #expect(response.text.contains("Authentication: REDACTED"))
        #expect(!response.text.contains("SECRET"))
        #expect(!failures.all.joined().contains("SECRET"))
        let line = try #require(try await logged.lines().first)
        #expect(line.hasPrefix("GET /nothing?jwt=REDACTED&code=REDACTED&auth=REDACTED&sid=REDACTED&state=kept-state -> 404"))
        #expect(!line.contains("SECRET"))
    }

    /// 600 connections at once: 512 are served, the rest get 503, and every descriptor comes back.
    @Test func connectionsPastTheLimitAre503AndTheServerRecovers() async throws {
        let server = try server()
        defer { server.stop() }
        let statuses = try await offThePool {
            let connections = try (0..<600).map { _ in try RawConnection(port: server.port) }
            var statuses: [Int: Int] = [:]
            for connection in connections.suffix(100) {
                connection.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
                statuses[try connection.readResponse().status, default: 0] += 1
            }
            for connection in connections { connection.disconnect() }
            return statuses
        }
        #expect(statuses == [200: 12, 503: 88])
        #expect(try server.stillServes())
    }

    /// Clients that send two pipelined requests and vanish with a reset leave the server serving.
    @Test func clientsResettingMidPipelineLeaveTheServerServing() async throws {
        stubs.stub(.get, "/events").respond(.streamed([.text("one"), .text("two")]))
        let server = try server()
        defer { server.stop() }
        try await offThePool {
            for _ in 0..<100 {
                let connection = try RawConnection(port: server.port)
                connection.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\n")
                connection.disconnect()
            }
        }
        #expect(try server.stillServes())
    }

    // MARK: - Lifecycle under traffic

    /// `stop()` while held answers wait and large answers are on their way: it returns, every
    /// waiting connection is closed, the port can be bound at once, and a release after it goes
    /// nowhere.
    @Test func stopDuringTrafficClosesEverythingAndFreesThePort() async throws {
        let gate = HeldResponse()
        stubs.stub(.get, "/held").respond(.text("late").held(by: gate))
        stubs.stub(.get, "/big").respond(.text(String(repeating: "x", count: 4_000_000)))
        let server = try server()
        let port = server.port
        let connections = try (0..<40).map { _ in try RawConnection(port: port) }
        for (index, connection) in connections.enumerated() {
            connection.send(
                index.isMultiple(of: 2)
                    ? "GET /held HTTP/1.1\r\nHost: x\r\n\r\n"
                    : "GET /big HTTP/1.1\r\nHost: x\r\n\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        }
        try await gate.waitUntilHolding(timeout: eventWait)

        server.stop()
        gate.release()

        for (index, connection) in connections.enumerated() where index.isMultiple(of: 2) {
            #expect(connection.isClosedByServer())
        }
        var configuration = StubServer.Configuration()
        configuration.port = port
        let again = try StubServer(stubs, configuration: configuration)
        defer { again.stop() }
        #expect(try again.stillServes())
    }

    /// While a log call cannot finish, the entries waiting for it are bounded by the size of
    /// their targets as well as by their count: a client sending targets of 60 KB to a server
    /// whose log is stuck piles up 4 MiB of them at most, not 10,000 (600 MB). The others are
    /// answered all the same, and what waits is logged in order once the log moves.
    @Test func theEntriesWaitingForABlockedLogAreBoundedByTheirSize() async throws {
        let release = DispatchSemaphore(value: 0)
        let logged = Locked<[String]>([])
        let dropped = Locked(0)
        let last = Milestones()
        let server = try server { configuration in
            configuration.log = { entry in
                dropped.withLock { $0 += entry.droppedBefore }
                let count = logged.withLock { targets in
                    targets.append(entry.target)
                    return targets.count
                }
                if count == 1 { _ = release.wait(timeout: .now() + 600) }
                if entry.target == "/a?last" { last.advance() }
            }
        }
        defer { server.stop() }
        defer { release.signal() }
        let query = String(repeating: "q", count: 60 * 1024)
        let statuses = try await offThePool {
            let connection = try RawConnection(port: server.port)
            return try (0..<100).map { index in
                connection.send("GET /a?\(index)=\(query) HTTP/1.1\r\nHost: x\r\n\r\n")
                return try connection.readResponse().status
            }
        }
        #expect(statuses == Array(repeating: 200, count: 100))

        release.signal()
        _ = try await offThePool { try RawConnection.get("/a?last", port: server.port) }
        try await last.wait(until: 1, timeout: eventWait, waitingFor: "the log to reach the last request")
        let targets = logged.current
        // The first (which blocked), at most 4 MiB of 60 KB targets (68), and the last.
        #expect((3...70).contains(targets.count), "\(targets.count) entries logged")
        let indices = targets.dropLast().compactMap { Int($0.dropFirst("/a?".count).prefix { $0 != "=" }) }
        #expect(indices == indices.sorted())
        #expect(targets.last == "/a?last")
        // Each dropped entry is counted, on the entry after it.
        #expect(dropped.current + targets.count == 101)
    }

    /// The article's own example logs with `print`; one log call that cannot finish (a standard
    /// output nobody reads) does not stop another connection. (`httpc serve`, whose log is a pipe
    /// the harness may never read, has a test of its own below.)
    @Test func aBlockedLogDoesNotStopOtherConnections() async throws {
        let release = DispatchSemaphore(value: 0)
        let logging = Milestones()
        let server = try server { configuration in
            configuration.log = { entry in
                guard entry.target == "/a?first" else { return }
                logging.advance()
                _ = release.wait(timeout: .now() + 600)
            }
        }
        defer { server.stop() }
        let first = try RawConnection(port: server.port)
        first.send("GET /a?first HTTP/1.1\r\nHost: x\r\n\r\n")
        try await logging.wait(until: 1, timeout: eventWait, waitingFor: "the first request's log call")

        // A stalled server shows as a read that runs out: bounded far above a normal answer.
        let second = try RawConnection(port: server.port, readTimeout: 60)
        second.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        let answer = try? second.readResponse()
        release.signal()
        #expect(answer?.text == "A")
        #expect(try first.readResponse().text == "A")
    }

    // MARK: - httpc serve

    /// A scratch fixture folder holding the sample API and `extra` names made by `make`.
    private func scratchFixtures(_ make: (URL) throws -> Void) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nall systems go\n".utf8)
            .write(to: folder.appendingPathComponent("GET|-status.http"))
        try make(folder)
        return folder
    }

    /// A fixture name under which there is no readable file (a FIFO, a folder, a link to
    /// itself, a link to nothing) is answered 500 with what is there, in the body and in the
    /// log line, as `--cassette` says it at start-up; it is never a silent close, nor a 404
    /// saying there is no file.
    @Test(arguments: FixtureFolderTests.unreadableFixtures)
    func httpcServeAnswersAFixtureThatIsNotAReadableFile500WithTheReason(_ fixture: (kind: String, reason: String)) async throws {
        let folder = try scratchFixtures { folder in
            try FixtureFolderTests.make(fixture.kind, at: folder.appendingPathComponent("GET|-\(fixture.kind).json").path)
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("GET|-\(fixture.kind).json").path
        let server = try HttpcServeTests().serve("--fixtures", folder.path)
        let answer = try await server.send("/\(fixture.kind)")
        #expect(answer.status == 500)
        #expect(answer.body.contains("\(file): cannot be read (\(fixture.reason))"), "\(answer.body)")
        let line = try #require(server.nextLine())
        #expect(line.hasPrefix("GET /\(fixture.kind) -> 500 ("), "\(line)")
        #expect(line.contains("\(file): cannot be read (\(fixture.reason))"), "\(line)")
        // The connection still serves.
        #expect(try await server.send("/status").body == "all systems go\n")
        server.launched.signal(SIGINT)
        #expect(server.launched.finish().status == 0)
    }

    /// A malformed `.http` fixture is answered 500 with the file, the line and what is wrong.
    @Test func aMalformedFixtureIsAnswered500WithItsFileAndLine() throws {
        let folder = try scratchFixtures { folder in
            try Data("HTTP/1.1 200 OK\nContent-Type text/plain\n\nbody".utf8).write(to: folder.appendingPathComponent("GET|-broken.http"))
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let stubs = StubRegistry(reporting: .disabled)
        stubs.serve(try FixtureFolder(directory: folder))
        let server = try StubServer.serving(stubs)
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send("GET /broken HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 500)
        #expect(response.text.contains("GET|-broken.http:2: \"Content-Type text/plain\" is not a header line"), "\(response.text)")
    }

    /// A fixture's name is made from the request's query: the credential in it is hidden in the
    /// log line that names the file, as in the target.
    @Test func theLogHidesACredentialInTheNameOfTheFixtureThatAnswered() async throws {
        let folder = try scratchFixtures { folder in
            try Data("{}".utf8).write(to: folder.appendingPathComponent("GET|-me?access_token=SECRETTOKEN.json"))
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let stubs = StubRegistry(reporting: .disabled)
        stubs.serve(try FixtureFolder(directory: folder))
        let logged = CollectedLog()
        let server = try StubServer.serving(stubs) { configuration in configuration.log = logged.log }
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send("GET /me?access_token=SECRETTOKEN HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try connection.readResponse().status == 200)
        let line = try #require(try await logged.lines().first)
        #expect(line.contains("GET|-me?access_token=REDACTED.json"), "\(line)")
        #expect(!line.contains("SECRETTOKEN"))
    }

    /// Launches `httpc serve` on `folder` and reads its first line, leaving the rest of its
    /// log in the pipe (`HttpcServeTests.serve` reads the log only when asked).
    private func launchServe(_ folder: URL) throws -> (LaunchedProcess, Int) {
        let server = try HttpcServeTests.Server(["--fixtures", folder.path], errors: .discarded)
        return (server.launched, server.port)
    }

    /// A harness that starts `httpc serve`, reads its first line for the address and never
    /// reads the log again (as `HttpcServeTests.serve` does) should still be answered. A server
    /// that writes its log where it answers stalls once about 64 KB of log lines wait in the
    /// pipe (624 requests): it answers no one, on any connection, until the log is read.
    @Test func httpcServeKeepsAnsweringWhenNobodyReadsItsLog() async throws {
        let folder = try scratchFixtures { _ in }
        defer { try? FileManager.default.removeItem(at: folder) }
        let (process, port) = try launchServe(folder)
        defer {
            process.discardTheRestOfItsOutput()
            process.signal(SIGINT)
            process.wait()
        }
        // A stalled server shows as a read that runs out: bounded far above a normal answer.
        let connection = try RawConnection(port: port, readTimeout: 60)
        let answered = try await offThePool {
            var answered = 0
            do {
                for _ in 0..<2_000 {
                    connection.send("GET /status HTTP/1.1\r\nHost: x\r\n\r\n")
                    _ = try connection.readResponse()
                    answered += 1
                }
            } catch is RawConnection.ReadError {}
            return answered
        }
        #expect(answered == 2_000)
        connection.disconnect()
    }

    /// `httpc serve` is a long-running mock API server; what it keeps per request should not
    /// grow with every request for as long as it runs. Were every request kept in the registry's
    /// log and its stub's calls, resident memory would grow by about 1.65 KB per request, never
    /// given back (65 MB, 98, 131, 163 MB after each 20,000 requests, as measured once).
    #if os(Linux)
    @Test func httpcServesMemoryDoesNotGrowWithEveryRequest() async throws {
        let folder = try scratchFixtures { _ in }
        defer { try? FileManager.default.removeItem(at: folder) }
        let (process, port) = try launchServe(folder)
        process.discardTheRestOfItsOutput()
        defer {
            process.signal(SIGINT)
            process.wait()
        }
        let connection = try RawConnection(port: port, readTimeout: 60)
        let pid = process.identifier
        let (before, after) = try await offThePool {
            func answer(_ count: Int) throws {
                connection.send(String(repeating: "GET /status HTTP/1.1\r\nHost: x\r\n\r\n", count: count))
                for _ in 0..<count { _ = try connection.readResponse() }
            }
            try answer(10_000)  // warm-up: buffers and caches reach their size
            let before = try Self.residentKilobytes(of: pid)
            try answer(10_000)
            return (before, try Self.residentKilobytes(of: pid))
        }
        #expect(after - before < 4_096, "grew by \(after - before) KB over 10,000 requests")
        connection.disconnect()
    }

    private static func residentKilobytes(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ")[1])
        else { throw RawConnection.ReadError(description: "no VmRSS line in /proc/\(pid)/status") }
        return kilobytes
    }
    #endif
}
