import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@_spi(Engine) @testable import HTTPClientStubs

/// Each `StubFault` and a stub's own framing against clients that do not play along: curl, a
/// raw socket that keeps sending or never reads, and many connections at once. Whatever they do,
/// the server ends each exchange the fault's way, never splits a response, never hangs and keeps
/// serving.
@Suite("Stub faults against hostile clients")
struct StubFaultsAgainstHostileClientsTests {
    let stubs: StubRegistry

    init() {
        stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/a").respond(.text("A"))
    }

    /// Runs curl with `arguments`; its exit status and its standard output.
    private func curl(_ arguments: [String]) async throws -> (status: Int32, output: Data) {
        try await offThePool {
            let run = try LaunchedProcess(
                URL(fileURLWithPath: "/usr/bin/env"), ["curl", "--silent", "--max-time", "60"] + arguments, errors: .discarded
            ).finish()
            return (run.status, run.output)
        }
    }

    private static var hasCurl: Bool {
        ["/usr/bin/curl", "/usr/local/bin/curl", "/opt/homebrew/bin/curl"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    // MARK: curl

    /// curl's exit codes: 56 a failure receiving (a reset, a bad chunk), 52 an empty reply, 1
    /// an HTTP/0.9 answer it does not allow, 55 a failure sending, 18 a body cut short.
    @Test(
        .enabled(if: hasCurl),
        arguments: [
            (StubFault.connectionReset, [56]),
            (.emptyResponse, [52]),
            (.garbage(Data("SSH-2.0-OpenSSH\r\n".utf8)), [1]),
            (.malformedChunk, [56]),
            (.disconnectDuringRequestBody, [55, 56]),
        ])
    func curlEndsEachFaultWithItsOwnErrorAtOnce(fault: StubFault, codes: [Int32]) async throws {
        stubs.stub(where: .path("/fault")).respond(.fault(fault))
        let server = try StubServer.serving(stubs)
        defer { server.stop() }
        let body = FileManager.default.temporaryDirectory.appendingPathComponent("fault-body-\(UUID())")
        try Data(repeating: 0x61, count: 8 << 20).write(to: body)
        defer { try? FileManager.default.removeItem(at: body) }

        let (status, _) = try await curl([
            "--data-binary", "@\(body.path)", "-H", "Expect:", server.baseURL.appendingPathComponent("fault").absoluteString,
        ])

        #expect(codes.contains(status), "curl exited \(status) for \(fault)")
        #expect(try server.stillServes())
    }

    @Test(.enabled(if: hasCurl))
    func curlGivesUpOnAStallAtItsOwnTimeout() async throws {
        stubs.stub(.get, "/stall").respond(.fault(.stall))
        let server = try StubServer.serving(stubs)
        defer { server.stop() }

        let (status, output) = try await curl(["--max-time", "1", server.baseURL.appendingPathComponent("stall").absoluteString])

        #expect(status == 28)  // timed out
        #expect(output.isEmpty)
        #expect(try server.stillServes())
    }

    // MARK: A client that keeps sending

    @Test func aClientThatKeepsSendingDuringADisconnectIsResetAndTheServerKeepsServing() async throws {
        let gone = stubs.stub(.post, "/upload").respond(.fault(.disconnectDuringRequestBody))
        let server = try StubServer.serving(stubs)
        defer { server.stop() }
        let port = server.port

        let (refused, ending) = try await offThePool {
            let connection = try RawConnection(port: port)
            connection.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 33554432\r\n\r\n")
            // 32 MiB announced, and sent until the server refuses them.
            let block = Data(repeating: 0x62, count: 1 << 20)
            var refused: Int32?
            for _ in 0..<32 where refused == nil { refused = connection.sendUntilRefused(block) }
            return (refused, connection.readToEnd())
        }

        // The reset reaches the client's write (or, had it sent everything first, its read).
        #expect(refused == ECONNRESET || refused == EPIPE || ending.ending == .reset, "\(String(describing: refused)), \(ending.ending)")
        #expect(ending.bytes.isEmpty)
        #expect(gone.callCount == 1)
        #expect(try server.stillServes())
    }

    /// The server's bounds come before any stub: a body announced past the body limit (64 MiB)
    /// is answered 413 while the head is read, and the stub, a fault included, is never asked.
    @Test func anUploadAnnouncedPastTheBodyLimitIs413BeforeAnyStubEvenAFault() async throws {
        let gone = stubs.stub(.post, "/upload").respond(.fault(.disconnectDuringRequestBody))
        let server = try StubServer.serving(stubs)
        defer { server.stop() }
        let port = server.port

        let ending = try await offThePool {
            let connection = try RawConnection(port: port)
            // Only the head: body bytes the server never reads would turn its close into a reset
            // that can overtake the 413.
            connection.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1073741824\r\n\r\n")
            return connection.readToEnd()
        }

        #expect(
            String(decoding: ending.bytes.prefix(12), as: UTF8.self) == "HTTP/1.1 413",
            "\(String(decoding: ending.bytes.prefix(300), as: UTF8.self))")
        #expect(gone.callCount == 0)
    }

    @Test func aChunkedUploadThatNeverEndsIsResetByADisconnect() async throws {
        stubs.stub(.post, "/upload").respond(.fault(.disconnectDuringRequestBody))
        let server = try StubServer.serving(stubs)
        defer { server.stop() }
        let port = server.port

        let (refused, ending) = try await offThePool {
            let connection = try RawConnection(port: port)
            connection.send("POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = Data("100000\r\n".utf8) + Data(repeating: 0x63, count: 0x100000) + Data("\r\n".utf8)
            var refused: Int32?
            for _ in 0..<32 where refused == nil { refused = connection.sendUntilRefused(chunk) }
            return (refused, connection.readToEnd())
        }

        #expect(refused == ECONNRESET || refused == EPIPE || ending.ending == .reset, "\(String(describing: refused)), \(ending.ending)")
        #expect(ending.bytes.isEmpty)
        #expect(try server.stillServes())
    }

    // MARK: Stalls

    @Test func manyStalledConnectionsCloseWhenStopReturns() async throws {
        let stall = stubs.stub(.get, "/stall").respond(.fault(.stall))
        let server = try StubServer.serving(stubs)
        let port = server.port
        let connections = try (0..<200).map { _ in try RawConnection(port: port) }
        for connection in connections { connection.send("GET /stall HTTP/1.1\r\nHost: x\r\n\r\n") }
        try await stall.waitForRequests(200, timeout: eventWait)

        let stopped = Milestones()
        Thread.detachNewThread {
            server.stop()
            stopped.advance()
        }
        try await stopped.wait(until: 1, timeout: eventWait, waitingFor: "stop() with 200 stalled connections")

        let endings = try await offThePool { connections.map { $0.readToEnd() } }
        #expect(endings.allSatisfy { $0.bytes.isEmpty && $0.ending != .open })
        // The port is free when stop() returns: a server listens on it at once. (Connecting to
        // it instead would race: under load, connect(2) to a loopback port nobody listens on can
        // pick that same port as its own and connect to itself.)
        let next = try StubServer.serving(stubs) { $0.port = port }
        next.stop()
    }

    @Test func stalledConnectionsPastTheLimitAreAnswered503() async throws {
        let stall = stubs.stub(.get, "/stall").respond(.fault(.stall))
        let server = try StubServer.serving(stubs) { configuration in
            configuration.maximumConnections = 16
            // However slow the run, no idle timeout frees a stalled slot: the limit alone is tested.
            configuration.idleTimeout = 600
        }
        defer { server.stop() }
        let port = server.port
        let stalled = try (0..<16).map { _ in try RawConnection(port: port) }
        for connection in stalled { connection.send("GET /stall HTTP/1.1\r\nHost: x\r\n\r\n") }
        try await stall.waitForRequests(16, timeout: eventWait)

        let statuses = try await offThePool {
            try (0..<8).map { _ in
                let connection = try RawConnection(port: port)
                connection.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
                return try connection.readResponse().status
            }
        }

        #expect(statuses == Array(repeating: 503, count: 8))
        for connection in stalled { connection.disconnect() }
    }

    @Test func aURLSessionTimesOutOnAStallAndTheServerLetsTheConnectionGo() async throws {
        stubs.stub(.get, "/stall").respond(.fault(.stall))
        let server = try StubServer.serving(stubs)
        defer { server.stop() }
        var request = URLRequest(url: server.baseURL.appendingPathComponent("stall"))
        request.timeoutInterval = 1

        let error = await #expect(throws: URLError.self) {
            _ = try await URLSession(configuration: .ephemeral).data(for: request)
        }

        #expect(error?.code == .timedOut)
        #expect(try server.stillServes())
    }

    // MARK: Garbage

    @Test func hugeGarbageArrivesWholeThenTheClose() async throws {
        // 24 MB of every byte value: a 64 KiB pattern (a whole number of its 256-byte period),
        // repeated, as a byte-by-byte loop takes seconds of CPU in a debug build.
        let pattern = Data((0..<(64 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var garbage = Data(capacity: 24 << 20)
        for _ in 0..<384 { garbage.append(pattern) }
        stubs.stub(.get, "/garbage").respond(.fault(.garbage(garbage)))
        let server = try StubServer.serving(stubs)
        defer { server.stop() }
        let port = server.port

        let (bytes, ending) = try await offThePool {
            let connection = try RawConnection(port: port)
            connection.send("GET /garbage HTTP/1.1\r\nHost: x\r\n\r\n")
            return connection.readToEnd()
        }

        #expect(bytes.count == garbage.count)
        #expect(bytes == garbage)
        #expect(ending == .closed)
    }

    @Test func hugeGarbageNobodyReadsHoldsUpNeitherOtherClientsNorStop() async throws {
        let garbage = Data(repeating: 0x7A, count: 64 << 20)
        stubs.stub(.get, "/garbage").respond(.fault(.garbage(garbage)))
        let server = try StubServer.serving(stubs)
        let port = server.port
        let readers = try (0..<4).map { _ in try RawConnection(port: port) }
        for reader in readers { reader.send("GET /garbage HTTP/1.1\r\nHost: x\r\n\r\n") }

        #expect(try await offThePool { try (0..<20).allSatisfy { _ in try server.stillServes() } })

        let stopped = Milestones()
        Thread.detachNewThread {
            server.stop()
            stopped.advance()
        }
        try await stopped.wait(until: 1, timeout: eventWait, waitingFor: "stop() with unread garbage")
        let endings = try await offThePool { readers.map { $0.readUntilClosed() } }
        #expect(endings.allSatisfy { $0.ended && $0.count < garbage.count })
    }

    @Test func aURLSessionReportsHugeGarbageAsAnError() async throws {
        stubs.stub(.get, "/garbage").respond(.fault(.garbage(Data(repeating: 0x00, count: 4 << 20))))
        let server = try StubServer.serving(stubs)
        defer { server.stop() }

        await #expect(throws: (any Error).self) {
            _ = try await URLSession(configuration: .ephemeral).data(from: server.baseURL.appendingPathComponent("garbage"))
        }
        #expect(try server.stillServes())
    }

    // MARK: A stub's own framing

    /// What a raw client reads for `GET /given` answered by `response`, with `GET /a` pipelined
    /// behind it, and how the connection ended.
    private func givenFraming(_ response: MockResponse) async throws -> (text: String, ending: RawConnection.Ending) {
        stubs.stub(.get, "/given").respond(response)
        let server = try StubServer.serving(stubs) { $0.idleTimeout = 5 }
        defer { server.stop() }
        let port = server.port
        let (bytes, ending) = try await offThePool {
            let connection = try RawConnection(port: port)
            connection.send("GET /given HTTP/1.1\r\nHost: x\r\n\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\n")
            return connection.readToEnd()
        }
        #expect(try server.stillServes())
        return (String(decoding: bytes, as: UTF8.self), ending)
    }

    /// The header lines of the first head in `text`.
    private func headLines(_ text: String) -> [String] {
        guard let end = text.range(of: "\r\n\r\n") else { return [] }
        return text[..<end.lowerBound].components(separatedBy: "\r\n")
    }

    @Test(arguments: [
        "a\r\nSet-Cookie: injected=1", "a\nSet-Cookie: injected=1", "a\rSet-Cookie: injected=1",
        "a\r\n\r\nHTTP/1.1 200 OK\r\nSet-Cookie: injected=1",
    ])
    func aHeaderValueWithLineBreaksCannotSplitAGivenFraming(value: String) async throws {
        let (text, ending) = try await givenFraming(
            .status(200, headers: ["X-Note": value, "Content-Length": "3"], body: Data("abc".utf8)).framedAsGiven())

        let lines = headLines(text)
        #expect(!lines.contains { $0.lowercased().hasPrefix("set-cookie") })
        #expect(lines.filter { $0.hasPrefix("X-Note:") }.count == 1)
        #expect(!text.contains("HTTP/1.1 200 OK\r\nSet-Cookie"))
        #expect(text.hasSuffix("\r\n\r\nabc"))
        #expect(ending == .closed)
    }

    @Test(arguments: [
        "Content-Length: 3\r\n\r\nHTTP/1.1 200 OK", "3\r\nSet-Cookie: injected=1",
    ])
    func aContentLengthWithLineBreaksCannotSplitAGivenFraming(length: String) async throws {
        let (text, _) = try await givenFraming(.status(200, headers: ["Content-Length": length], body: Data("abc".utf8)).framedAsGiven())

        let lines = headLines(text)
        #expect(!lines.contains { $0.lowercased().hasPrefix("set-cookie") })
        #expect(lines.filter { $0.hasPrefix("HTTP/") }.count == 1, "\(text)")
        #expect(lines.filter { $0.lowercased().hasPrefix("content-length:") }.count == 1, "\(text)")
        #expect(text.hasSuffix("\r\n\r\nabc"))
    }

    @Test(arguments: ["-1", "-99999999999999999999999", "99999999999999999999999", "18446744073709551616", "0x10", " ", "3, 4"])
    func anImpossibleContentLengthIsSentAsGivenThenTheClose(length: String) async throws {
        let (text, ending) = try await givenFraming(
            .status(200, headers: ["Content-Length": length], body: Data("abc".utf8)).framedAsGiven())

        #expect(text.hasPrefix("HTTP/1.1 200 "))
        #expect(text.hasSuffix("\r\n\r\nabc"))
        #expect(!text.contains("\r\n\r\nA"))  // the pipelined request behind it is not answered
        #expect(ending == .closed)
    }

    @Test(arguments: [
        "zz\r\nabc\r\n0\r\n\r\n", "-3\r\nabc\r\n0\r\n\r\n", "FFFFFFFFFFFFFFFFFFFF\r\nabc\r\n", "3\r\nabc", "0\r\n\r\n0\r\n\r\n",
    ])
    func aChunkedBodyWithBadSizesIsSentAsGivenThenTheClose(body: String) async throws {
        let (text, ending) = try await givenFraming(
            .status(200, headers: ["Transfer-Encoding": "chunked"], body: Data(body.utf8)).framedAsGiven())

        #expect(text.hasSuffix("\r\n\r\n" + body))
        #expect(text.components(separatedBy: "HTTP/1.1 ").count == 2)
        #expect(ending == .closed)
    }

    @Test func aBodyShorterThanItsLengthIsFollowedByNothingButTheClose() async throws {
        let (text, ending) = try await givenFraming(
            .status(200, headers: ["Content-Length": "1000"], body: Data("abc".utf8)).framedAsGiven())

        // Were the pipelined request answered, a client would read its answer as this body.
        #expect(text.hasSuffix("\r\n\r\nabc"))
        #expect(ending == .closed)
    }

    @Test(arguments: [
        "Fine\r\nSet-Cookie: injected=1", "Fine\nSet-Cookie: injected=1", "Fine\r\n\r\nHTTP/1.1 200 OK",
    ])
    func aReasonPhraseWithLineBreaksCannotSplitTheAnswer(reason: String) async throws {
        stubs.stub(.get, "/odd").respond(.status(299).reason(reason))
        let server = try StubServer.serving(stubs)
        defer { server.stop() }
        let port = server.port

        let (first, second) = try await offThePool {
            let connection = try RawConnection(port: port)
            connection.send("GET /odd HTTP/1.1\r\nHost: x\r\n\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\n")
            return (try connection.readResponse(), try connection.readResponse())
        }

        #expect(first.status == 299)
        #expect(first.values("Set-Cookie").isEmpty)
        #expect(second.status == 200 && second.text == "A")
    }

    @Test(arguments: [-1, 0, 7, 1000, 123_456, Int.max, Int.min])
    func aStatusOutsideThreeDigitsNeitherCrashesTheServerNorSplitsItsAnswer(status: Int) async throws {
        stubs.stub(.get, "/odd").respond(.status(status))
        let server = try StubServer.serving(stubs)
        defer { server.stop() }
        let port = server.port

        let (bytes, _) = try await offThePool {
            let connection = try RawConnection(port: port)
            connection.send("GET /odd HTTP/1.1\r\nHost: x\r\n\r\n")
            connection.finishSending()
            return connection.readToEnd()
        }

        let text = String(decoding: bytes, as: UTF8.self)
        let statusLine = text.components(separatedBy: "\r\n").first ?? ""
        // Either an answer whose status line is HTTP's (three digits), or no answer at all.
        #expect(text.isEmpty || statusLine.range(of: #"^HTTP/1\.1 \d{3} "#, options: .regularExpression) != nil, "\(statusLine)")
        #expect(try server.stillServes())
    }
}
