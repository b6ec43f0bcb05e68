import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient
@testable import HTTPClientStubs

/// Starting, stopping, and clients that misbehave: StubServer never crashes or hangs.
@Suite("StubServer lifecycle")
struct StubServerLifecycleTests {
    let failures = CollectedFailures()

    @Test func stopClosesEveryConnection() async throws {
        let server = try StubServer(StubRegistry(reporting: failures.reporting))
        let connection = try RawConnection(port: server.port)

        server.stop()

        #expect(connection.isClosedByServer())
    }

    @Test func aStoppedServersPortCanBeBoundAgainAtOnce() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/a").respond(.text("A"))
        let server = try StubServer(stubs)
        // A connection the server closed first: its side waits in TIME_WAIT on the port.
        let connection = try RawConnection(port: server.port)
        connection.send("GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        _ = try connection.readResponse()
        #expect(connection.isClosedByServer())

        server.stop()
        let again = try StubServer(stubs, configuration: configuration(port: server.port))
        defer { again.stop() }

        #expect(again.port == server.port)
    }

    @Test func stopCanBeCalledTwice() throws {
        let server = try StubServer(StubRegistry(reporting: failures.reporting))
        server.stop()
        server.stop()
    }

    @Test func aTakenPortFailsWithTheAddressAndTheSystemsReason() throws {
        let server = try StubServer(StubRegistry(reporting: failures.reporting))
        defer { server.stop() }

        let error = #expect(throws: StubServerError.self) {
            try StubServer(StubRegistry(reporting: failures.reporting), configuration: configuration(port: server.port))
        }

        #expect(error?.description.hasPrefix("StubServer could not bind 127.0.0.1 port \(server.port): ") == true)
        #expect(error?.description.contains("errno") == true)
    }

    @Test func anAddressThatIsNotNumericFailsWithoutCrashing() throws {
        var configuration = StubServer.Configuration()
        configuration.address = .custom("localhost")

        let error = #expect(throws: StubServerError.self) {
            try StubServer(StubRegistry(reporting: failures.reporting), configuration: configuration)
        }

        #expect(error?.description == "StubServer could not bind localhost port 0: not a numeric IPv4 or IPv6 address.")
    }

    @Test func aHeldAnswerReleasedAfterStopGoesNowhere() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let gate = HeldResponse()
        stubs.stub(.get, "/held").respond(.text("late").held(by: gate))
        let server = try StubServer(stubs)
        let connection = try RawConnection(port: server.port)
        connection.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n")
        try await gate.waitUntilHolding(timeout: eventWait)

        server.stop()
        gate.release()

        #expect(connection.isClosedByServer())
        #expect(gate.heldRequests.isEmpty)
    }

    @Test func aClientThatGoesAwayCancelsItsHeldExchange() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let gate = HeldResponse()
        stubs.stub(.get, "/held").respond(.text("late").held(by: gate))
        let entries = Locked<[StubServer.LogEntry]>([])
        let logged = Milestones()
        var configuration = StubServer.Configuration()
        configuration.log = { entry in
            entries.withLock { $0.append(entry) }
            logged.advance()
        }
        let server = try StubServer(stubs, configuration: configuration)
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n")
        try await gate.waitUntilHolding(timeout: eventWait)

        connection.disconnect()
        try await logged.wait(until: 1, timeout: eventWait, waitingFor: "the log entry of the cancelled request")

        #expect(entries.current.map(\.description) == ["GET /held -> closed (the connection closed before the answer)"])
        #expect(gate.heldRequests.isEmpty)
    }

    // MARK: A client that ends its sending side

    /// `printf '...' | nc -N`: the client shuts its sending side and reads. A server that
    /// takes the end of the input for the client going away drops the answer, unless it has
    /// gone out before the end is read (about one run in five).
    @Test func aClientThatHasFinishedSendingGetsEveryAnswerThenTheClose() throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/a").respond(.text("A"))
        stubs.stub(.post, "/b").respond(.text("B"))
        let server = try StubServer(stubs)
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send(
            "GET /a HTTP/1.1\r\nHost: x\r\n\r\nPOST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi"
                + "GET /missing HTTP/1.1\r\nHost: x\r\n\r\n")
        connection.finishSending()

        #expect(try connection.readResponse().text == "A")
        #expect(try connection.readResponse().text == "B")
        #expect(try connection.readResponse().status == 404)
        #expect(connection.isClosedByServer())
        #expect(stubs.requests.map(\.path) == ["/a", "/b", "/missing"])
    }

    /// The request after the last whole one can never be finished: the whole ones are answered,
    /// then the connection closes at once (no read timeout to wait out).
    @Test func aRequestLeftUnfinishedWhenTheInputEndsGetsNoAnswer() throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/a").respond(.text("A"))
        stubs.stub(.post, "/a").respond(.text("posted"))
        let server = try StubServer(stubs)
        defer { server.stop() }
        let connection = try RawConnection(port: server.port, readTimeout: 20)
        connection.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nPOST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
        connection.finishSending()

        #expect(try connection.readResponse().text == "A")
        #expect(connection.isClosedByServer())
        #expect(stubs.requests.map(\.method) == ["GET"])
    }

    /// A client that closed only its sending side looks, from the server, like one that went
    /// away: an answer the test holds lets go of its request, the answers before it still go out.
    @Test func aHeldAnswerLetsGoWhenTheClientEndsItsInput() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let gate = HeldResponse()
        stubs.stub(.get, "/a").respond(.text("A"))
        stubs.stub(.get, "/held").respond(.text("late").held(by: gate))
        let logged = Milestones()
        let entries = Locked<[String]>([])
        var configuration = StubServer.Configuration()
        configuration.log = { entry in
            entries.withLock { $0.append(entry.description) }
            logged.advance()
        }
        let server = try StubServer(stubs, configuration: configuration)
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /held HTTP/1.1\r\nHost: x\r\n\r\n")
        try await gate.waitUntilHolding(timeout: eventWait)

        connection.finishSending()
        try await logged.wait(until: 2, timeout: eventWait, waitingFor: "the log entry of the let-go request")

        #expect(try connection.readResponse().text == "A")
        #expect(connection.isClosedByServer())
        #expect(gate.heldRequests.isEmpty)
        #expect(entries.current.last == "GET /held -> closed (the connection closed before the answer)")
    }

    @Test func aClientThatVanishesMidBodyLeavesTheServerServing() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let parts = (0..<50).flatMap { _ in [StreamPart.data(Data(repeating: 1, count: 64 * 1024)), .pause(0.001)] }
        stubs.stub(.get, "/stream").respond(.streamed(parts))
        stubs.stub(.get, "/ok").respond(.text("ok"))
        let server = try StubServer(stubs)
        defer { server.stop() }

        for _ in 0..<5 {
            let leaving = try RawConnection(port: server.port)
            leaving.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try leaving.readResponse(toHead: true)
            leaving.disconnect()
        }
        let staying = try RawConnection(port: server.port)
        staying.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")

        #expect(try staying.readResponse().text == "ok")
    }

    @Test func aBodyLargerThanTheSocketTakesAtOnceArrivesWhole() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        var body = Data(repeating: 0x61, count: 4 << 20)
        body[12345] = 0x62
        body[body.count - 1] = 0x63
        stubs.stub(.get, "/big").respond(.status(200, body: body))
        stubs.stub(.get, "/parts").respond(
            .streamed(stride(from: 0, to: body.count, by: 1 << 20).map { .data(body[$0..<($0 + (1 << 20))]) }))
        let server = try StubServer(stubs)
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\nGET /parts HTTP/1.1\r\nHost: x\r\n\r\n")

        let bodies = try await offThePool { try [connection.readResponse().body, connection.readResponse().body] }
        #expect(bodies == [body, body])
    }

    @Test func thousandsOfPipelinedRequestsAreAnsweredInOrder() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/items/{id}").respond(.computed { request in .text(request.pathParameters["id"] ?? "") })
        let server = try StubServer(stubs)
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send((0..<2000).map { "GET /items/\($0) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined())
        let texts = try await offThePool { try (0..<2000).map { _ in try connection.readResponse().text } }

        #expect(texts == (0..<2000).map(String.init))
    }

    @Test func hundredsOfConcurrentRequestsAreAllAnswered() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/items/{id}").respond(.computed { request in .text(request.pathParameters["id"] ?? "") })
        let server = try StubServer(stubs)
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)

        let answers = try await withThrowingTaskGroup(of: Bool.self) { group in
            for id in 0..<300 {
                group.addTask {
                    let (data, _) = try await session.data(from: server.baseURL.appendingPathComponent("items/\(id)"))
                    return String(decoding: data, as: UTF8.self) == "\(id)"
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }

        #expect(answers.count == 300)
        #expect(answers.allSatisfy { $0 })
        #expect(stubs.requests.count == 300)
    }

    @Test func hundredsOfRawConnectionsAtOnceAreAllAnswered() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/a").respond(.text("A"))
        let server = try StubServer(stubs)
        defer { server.stop() }

        let texts = try await offThePool {
            let connections = try (0..<200).map { _ in try RawConnection(port: server.port) }
            for connection in connections { connection.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n") }
            return try connections.map { try $0.readResponse().text }
        }

        #expect(texts.allSatisfy { $0 == "A" })
    }

    private func configuration(port: Int) -> StubServer.Configuration {
        var configuration = StubServer.Configuration()
        configuration.port = port
        return configuration
    }
}
