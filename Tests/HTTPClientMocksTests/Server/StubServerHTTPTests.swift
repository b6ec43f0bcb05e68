import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient
@_spi(Engine) @testable import HTTPClientStubs

/// StubServer's HTTP/1.1, through raw connections: keep-alive, pipelining, 100-continue, HEAD,
/// limits, timeouts, malformed input.
@Suite("StubServer HTTP")
struct StubServerHTTPTests {
    let failures = CollectedFailures()

    private func server(_ stubs: StubRegistry, _ adjust: (inout StubServer.Configuration) -> Void = { _ in }) throws -> StubServer {
        try StubServer.serving(stubs, adjust)
    }

    @Test func aConnectionStaysOpenForTheNextRequest() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/a").respond(.text("A"))
        stubs.stub(.get, "/b").respond(.text("B"))
        let server = try server(stubs)
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try connection.readResponse()
        connection.send("GET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        let second = try connection.readResponse()

        #expect([first.text, second.text] == ["A", "B"])
    }

    @Test func connectionCloseEndsTheConnectionAfterTheAnswer() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/a").respond(.text("A"))
        let server = try server(stubs)
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let response = try connection.readResponse()

        #expect(response.values("Connection") == ["close"])
        #expect(connection.isClosedByServer())
    }

    @Test func anHTTP10RequestClosesAfterItsAnswer() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/a").respond(.text("A"))
        let server = try server(stubs)
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /a HTTP/1.0\r\n\r\n")

        #expect(try connection.readResponse().text == "A")
        #expect(connection.isClosedByServer())
    }

    @Test func pipelinedAnswersKeepTheRequestOrderBehindAHeldFirstAnswer() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let gate = HeldResponse()
        stubs.stub(.get, "/first").respond(.text("first").held(by: gate))
        let second = stubs.stub(.get, "/second").respond(.text("second"))
        let server = try server(stubs)
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\nGET /second HTTP/1.1\r\nHost: x\r\n\r\n")
        try await gate.waitUntilHolding(timeout: eventWait)
        try await second.waitForRequests(1, timeout: eventWait)
        #expect(!connection.hasBytes(within: 20))
        gate.release()

        #expect(try connection.readResponse().text == "first")
        #expect(try connection.readResponse().text == "second")
    }

    @Test func aChunkedRequestBodyReachesTheStubDecoded() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.post, "/upload").matching(.body("hello world")).respond(.status(201))
        let server = try server(stubs)
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")

        #expect(try connection.readResponse().status == 201)
        #expect(failures.all.isEmpty)
    }

    @Test func expectContinueGetsA100BeforeTheBodyIsSent() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.post, "/upload").matching(.body("data")).respond(.status(200))
        let server = try server(stubs)
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        let interim = try connection.readResponse()
        connection.send("data")
        let final = try connection.readResponse()

        #expect(interim.status == 100)
        #expect(final.status == 200)
    }

    @Test func headAnswersTheHeadWithTheLengthOfTheBodyAndNoBody() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(where: .path("/doc")).respond(.text("twelve bytes"))
        let server = try server(stubs)
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("HEAD /doc HTTP/1.1\r\nHost: x\r\n\r\nGET /doc HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try connection.readResponse(toHead: true)
        let get = try connection.readResponse()

        #expect(head.values("Content-Length") == ["12"])
        #expect(get.text == "twelve bytes")
    }

    @Test func malformedInputGetsA400AndAClosedConnection() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let server = try server(stubs)
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("THIS IS NOT HTTP\r\n\r\n")
        let response = try connection.readResponse()

        #expect(response.status == 400)
        #expect(response.values("Connection") == ["close"])
        #expect(connection.isClosedByServer())
    }

    @Test func aHeadOverTheLimitGetsA431() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let server = try server(stubs) { $0.limits = HTTPServerLimits(maximumHeadBytes: 1024) }
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 2000))\r\n\r\n")

        #expect(try connection.readResponse().status == 431)
        #expect(connection.isClosedByServer())
    }

    @Test func aBodyOverTheLimitGetsA413() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let server = try server(stubs) { $0.limits = HTTPServerLimits(maximumBodyBytes: 10) }
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n01234567890")

        #expect(try connection.readResponse().status == 413)
        #expect(stubs.requests.isEmpty)
    }

    @Test func aConnectionOverTheLimitIsAnswered503AndClosed() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/a").respond(.text("A"))
        let server = try server(stubs) { $0.maximumConnections = 1 }
        defer { server.stop() }
        let first = try RawConnection(port: server.port)
        first.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try first.readResponse()

        let second = try RawConnection(port: server.port)
        let refused = try second.readResponse()

        #expect(refused.status == 503)
        #expect(second.isClosedByServer())
    }

    @Test func aClientThatGoesQuietMidRequestGetsA408() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let server = try server(stubs) { $0.readTimeout = 0.1 }
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /a HTTP/1.1\r\nHo")

        #expect(try connection.readResponse().status == 408)
        #expect(connection.isClosedByServer())
    }

    @Test func anIdleConnectionIsClosedAfterTheIdleTimeout() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/a").respond(.text("A"))
        let server = try server(stubs) { $0.idleTimeout = 0.1 }
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try connection.readResponse()

        #expect(connection.isClosedByServer())
    }

    @Test func aHeldAnswerIsNotCutByTheIdleTimeout() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let gate = HeldResponse()
        stubs.stub(.get, "/held").respond(.text("late").held(by: gate))
        let server = try server(stubs) { $0.idleTimeout = 0.05 }
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n")
        try await gate.waitUntilHolding(timeout: eventWait)
        #expect(!connection.hasBytes(within: 150))
        gate.release()

        #expect(try connection.readResponse().text == "late")
    }
}
