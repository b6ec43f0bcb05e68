import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient
@testable import HTTPClientStubs

/// What a StubServer writes on the socket for what the stubs say, read off the wire. What a
/// client observes of the stubs' behaviours is checked on every transport, the server's column
/// included (`Transport.stubServer`).
@Suite("StubServer")
struct StubServerTests {
    let failures = CollectedFailures()

    @Test func theServerListensOnIPv6LoopbackWhenAsked() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/ping").respond(.text("pong"))
        var configuration = StubServer.Configuration()
        configuration.address = .loopbackIPv6
        let server = try StubServer(stubs, configuration: configuration)
        defer { server.stop() }

        let connection = try RawConnection(port: server.port, ipv6: true)
        connection.send("GET /ping HTTP/1.1\r\nHost: [::1]\r\n\r\n")
        let response = try connection.readResponse()

        #expect(server.baseURL.absoluteString == "http://[::1]:\(server.port)")
        #expect(response.text == "pong")
        #expect(stubs.requests.first?.url.host == "::1")
    }

    @Test func anUnmatchedRequestGetsA404WithTheReportAndFailsTheTest() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/users/1").respond(.text("one"))
        let server = try StubServer(stubs)
        defer { server.stop() }

        let connection = try RawConnection(port: server.port)
        connection.send("GET /users/2?token=s3cret HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer abc123\r\n\r\n")
        let response = try connection.readResponse()

        #expect(response.status == 404)
        #expect(response.text.contains("/users/2"))
        #expect(response.text.contains("path /users/1"))
        #expect(!response.text.contains("abc123"))
        #expect(!response.text.contains("s3cret"))
        #expect(failures.all.count == 1)
        #expect(stubs.unmatchedRequests.count == 1)
    }

    @Test func aMissOnTheServersThreadFailsTheTestThatOwnsTheRegistry() async throws {
        let recorded = Locked<[String]>([])
        let test = try #require(Test.current)
        try await withKnownIssue("the miss is recorded in this test") {
            try await StubsTrait(requiresAllStubsUsed: false).provideScope(for: test, testCase: nil) {
                let stubs = try #require(StubRegistry.current)
                let server = try StubServer(stubs)
                defer { server.stop() }
                // The server resolves on its connection's queue, outside the test's task.
                _ = try await URLSession(configuration: .ephemeral).data(from: server.baseURL.appendingPathComponent("missing"))
            }
        } matching: { issue in
            recorded.withLock { $0.append(issue.comments.map(\.rawValue).joined()) }
            return true
        }
        #expect(recorded.current.count == 1)
        #expect(recorded.current.first?.contains("Unmatched request") == true)
        #expect(recorded.current.first?.contains("/missing") == true)
    }

    @Test func theStatusOfUnmatchedRequestsIsConfigurable() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        var configuration = StubServer.Configuration()
        configuration.unmatchedStatus = 501
        let server = try StubServer(stubs, configuration: configuration)
        defer { server.stop() }

        let (_, response) = try await URLSession(configuration: .ephemeral).data(from: server.baseURL.appendingPathComponent("nothing"))

        #expect((response as? HTTPURLResponse)?.statusCode == 501)
    }

    @Test func sequencesAnswerInTurnAcrossRequests() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/job").respond(.status(202), .status(200))
        let server = try StubServer(stubs)
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /job HTTP/1.1\r\nHost: x\r\n\r\nGET /job HTTP/1.1\r\nHost: x\r\n\r\n")

        #expect(try connection.readResponse().status == 202)
        #expect(try connection.readResponse().status == 200)
    }

    @Test func eachSetCookieGoesOutAsItsOwnHeaderLine() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        var headers = HTTPHeaders()
        headers.add(name: "Set-Cookie", value: "a=1; Expires=Wed, 21 Oct 2043 07:28:00 GMT")
        headers.add(name: "Set-Cookie", value: "b=2")
        stubs.stub(.get, "/login").respond(.status(200, headers: headers))
        let server = try StubServer(stubs)
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /login HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try connection.readResponse()

        #expect(response.values("Set-Cookie") == ["a=1; Expires=Wed, 21 Oct 2043 07:28:00 GMT", "b=2"])
    }

    @Test func aStreamedBodyGoesOutChunkedPartByPart() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/feed").respond(.streamed([.text("one"), .pause(0.05), .text("two")]))
        let server = try StubServer(stubs)
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /feed HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try connection.readResponse()

        #expect(response.chunked)
        #expect(response.chunks == [Data("one".utf8), Data("two".utf8)])
    }

    @Test func aHeldResponseIsWrittenWhenReleased() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        let gate = HeldResponse()
        stubs.stub(.get, "/held").respond(.text("now").held(by: gate))
        let server = try StubServer(stubs)
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n")
        try await gate.waitUntilHolding(timeout: eventWait)
        #expect(!connection.hasBytes(within: 20))
        gate.release()

        #expect(try connection.readResponse().text == "now")
    }

    @Test func aStubbedNetworkErrorClosesTheConnectionWithoutAnAnswer() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/down").respond(.error(URLError(.networkConnectionLost)))
        let server = try StubServer(stubs)
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /down HTTP/1.1\r\nHost: x\r\n\r\n")

        #expect(connection.isClosedByServer())
    }

    @Test func theLogHasOneEntryPerRequestWithWhatAnsweredIt() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/users/{id}").respond(.text("x"))
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

        connection.send("GET /users/5 HTTP/1.1\r\nHost: x\r\n\r\nDELETE /other?api_key=s3cret HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try connection.readResponse()
        _ = try connection.readResponse()
        // The log is called on a queue of its own, in order.
        try await logged.wait(until: 2, timeout: eventWait, waitingFor: "the two log entries")

        let lines = entries.current.map(\.description)
        #expect(lines.count == 2)
        #expect(lines.first == "GET /users/5 -> 200 (method GET && path /users/{id})")
        #expect(lines.last?.hasPrefix("DELETE /other?api_key=") == true)
        #expect(lines.last?.contains("s3cret") == false)
        // Why none matched: the closest stub and its reasons, on the one line.
        #expect(lines.last?.contains("-> 404 (no stub matched; closest, method GET && path /users/{id}: ") == true)
    }

}
