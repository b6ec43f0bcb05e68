import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient
@_spi(Engine) @testable import HTTPClientStubs

/// What a StubServer's answers say, as HTTP servers' answers do, read off a raw connection: URLs
/// at the host the client addressed, HEAD answered as GET without the body, case-sensitive
/// methods, a `Date` on every answer, and HTTP/1.0 keep-alive said out loud.
@Suite("StubServer answers: Host-based URLs, HEAD, methods, Date, keep-alive")
struct StubServerAnswerTests {
    let failures = CollectedFailures()
    let stubs: StubRegistry

    init() {
        stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/a").respond(.text("A"))
    }

    private func server(_ adjust: (inout StubServer.Configuration) -> Void = { _ in }) throws -> StubServer {
        try StubServer.serving(stubs, adjust)
    }

    /// A server on every interface whose `/old` redirects to its own address, as a cassette
    /// served by `httpc serve` does.
    private func wildcardServerRedirectingToItself() throws -> StubServer {
        let server = try server { $0.address = .custom("0.0.0.0") }
        let own = server.baseURL.absoluteString
        #expect(own.hasPrefix("http://0.0.0.0:"))
        stubs.stub(.get, "/old").respond(
            .status(302, headers: ["Location": own + "/new?page=2", "Content-Location": own, "Link": "<\(own)/next>; rel=next"]))
        return server
    }

    // MARK: URLs at the host the client addressed

    @Test func aLocationAtTheServersOwnAddressPointsAtTheHostTheClientAddressed() throws {
        let server = try wildcardServerRedirectingToItself()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /old HTTP/1.1\r\nHost: 192.0.2.7:\(server.port)\r\n\r\n")
        let response = try connection.readResponse()

        #expect(response.status == 302)
        #expect(response.values("Location") == ["http://192.0.2.7:\(server.port)/new?page=2"])
        #expect(response.values("Content-Location") == ["http://192.0.2.7:\(server.port)"])
        // Only the URLs a client follows or stores are moved.
        #expect(response.values("Link") == ["<\(server.baseURL.absoluteString)/next>; rel=next"])
    }

    @Test(arguments: [
        "GET /old HTTP/1.0\r\n\r\n", "GET /old HTTP/1.1\r\nHost: a,b\r\n\r\n", "GET /old HTTP/1.1\r\nHost: evil%2Eexample:80\r\n\r\n",
        "GET /old HTTP/1.1\r\nHost: a.example:99999\r\n\r\n",
    ])
    func withoutAPlainHostALocationAtTheServersOwnAddressIsMadeRelative(request: String) throws {
        let server = try wildcardServerRedirectingToItself()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send(request)
        let response = try connection.readResponse()

        #expect(response.values("Location") == ["/new?page=2"])
        #expect(response.values("Content-Location") == ["/"])
    }

    @Test func aLocationElsewhereIsLeftAsTheStubSaysIt() throws {
        stubs.stub(.get, "/away").respond(.status(301, headers: ["Location": "https://elsewhere.example/new"]))
        let server = try server { $0.address = .custom("0.0.0.0") }
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /away HTTP/1.1\r\nHost: 192.0.2.7\r\n\r\n")

        #expect(try connection.readResponse().values("Location") == ["https://elsewhere.example/new"])
    }

    @Test func theRecordedRequestHasTheHostAndPortTheClientAddressed() throws {
        let server = try server { $0.address = .custom("0.0.0.0") }
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /a?x=1 HTTP/1.1\r\nHost: phone-test.local:8080\r\n\r\n")
        _ = try connection.readResponse()

        #expect(stubs.requests.map(\.url.absoluteString) == ["http://phone-test.local:8080/a?x=1"])
    }

    @Test func withoutAHostLineTheRecordedRequestHasTheServersAddress() throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /a HTTP/1.0\r\n\r\n")
        _ = try connection.readResponse()

        #expect(stubs.requests.map(\.url.absoluteString) == [server.baseURL.absoluteString + "/a"])
    }

    // MARK: HEAD

    @Test func aHeadIsAnsweredByTheGetStubWithItsHeadersAndWithoutItsBody() throws {
        let get = stubs.stub(.get, "/doc").respond(.text("twelve bytes", headers: ["Content-Type": "text/plain", "X-Doc": "1"]))
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        // The GET behind it is read whole only if the HEAD's answer brought no body bytes.
        connection.send("HEAD /doc HTTP/1.1\r\nHost: x\r\n\r\nGET /doc HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try connection.readResponse(toHead: true)
        let body = try connection.readResponse()

        #expect(head.status == 200)
        #expect(head.values("Content-Length") == ["12"])
        #expect(head.values("X-Doc") == ["1"])
        #expect(head.values("Content-Type") == ["text/plain"])
        #expect(body.text == "twelve bytes")
        // The GET stub answered both, and its calls and the log show the HEAD as a HEAD.
        #expect(get.calls.map(\.method) == [.head, .get])
        #expect(stubs.requests.map(\.method) == [.head, .get])
        #expect(stubs.verify(get, requested: .exactly(2)))
        #expect(failures.all.isEmpty)
    }

    @Test func aHeadOfAStreamedGetHasTheLengthOfTheWholeBodyAndNoBody() throws {
        stubs.stub(.get, "/feed").respond(.streamed([.text("ab"), .pause(0.01), .text("cde")]))
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("HEAD /feed HTTP/1.1\r\nHost: x\r\n\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try connection.readResponse(toHead: true)

        #expect(head.values("Transfer-Encoding").isEmpty)
        #expect(head.values("Content-Length") == ["5"])
        #expect(try connection.readResponse().text == "A")
    }

    @Test func aStubForHeadWinsOverTheGetStub() throws {
        let get = stubs.stub(.get, "/doc").respond(.text("from get"))
        stubs.stub(.head, "/doc").respond(.status(204, headers: ["X-From": "head"]))
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("HEAD /doc HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try connection.readResponse(toHead: true)

        #expect(head.status == 204)
        #expect(head.values("X-From") == ["head"])
        #expect(get.calls.isEmpty)
    }

    @Test func aHeadWithNeitherStubGetsTheUnmatchedReportsHeadAndFailsTheTest() throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("HEAD /nothing HTTP/1.1\r\nHost: x\r\n\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try connection.readResponse(toHead: true)

        #expect(head.status == 404)
        #expect(head.values("Content-Length").first.flatMap(Int.init).map { $0 > 0 } == true)
        #expect(try connection.readResponse().text == "A")
        #expect(failures.all.count == 1)
    }

    // MARK: Methods are case-sensitive

    @Test(arguments: ["get", "Get", "head", "pOST"])
    func aMethodIsCaseSensitiveAndItsOtherSpellingsAre501(method: String) throws {
        stubs.stub(where: .path("/any")).respond(.text("any method"))
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("\(method) /any HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try connection.readResponse()

        #expect(response.status == 501)
        #expect(response.text.contains("case-sensitive"))
        #expect(stubs.requests.isEmpty)
    }

    @Test func anUnregisteredMethodNoStubAnswersIs501AndTheConnectionStaysOpen() throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("PURGE /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabcGET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        let refused = try connection.readResponse()
        let next = try connection.readResponse()

        #expect(refused.status == 501)
        #expect(refused.text.contains("PURGE"))
        #expect(next.text == "A")
        #expect(stubs.requests.count == 1)
        #expect(failures.all.isEmpty)
    }

    @Test func anUnregisteredMethodAStubNamesIsAnswered() throws {
        let purge = stubs.stub(HTTPMethod(rawValue: "PURGE"), "/cache").respond(.status(202))
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("PURGE /cache HTTP/1.1\r\nHost: x\r\n\r\n")

        #expect(try connection.readResponse().status == 202)
        #expect(purge.calls.count == 1)
    }

    @Test func aRegisteredMethodWithoutAStubGetsTheUnmatchedReport() throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("PROPFIND /a HTTP/1.1\r\nHost: x\r\n\r\n")

        #expect(try connection.readResponse().status == 404)
        #expect(failures.all.count == 1)
    }

    @Test(arguments: ["G(T", "GET\u{1}", "GE\"T"])
    func aMethodThatIsNotATokenIsStillA400(method: String) throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("\(method) /a HTTP/1.1\r\nHost: x\r\n\r\n")

        #expect(try connection.readResponse().status == 400)
        #expect(connection.isClosedByServer())
    }

    // MARK: Date

    @Test(arguments: [
        "GET /a HTTP/1.1\r\nHost: x\r\n\r\n", "GET /missing HTTP/1.1\r\nHost: x\r\n\r\n", "PURGE /a HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /a HTTP/1.1\r\n\r\n", "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
    ])
    func everyAnswerCarriesOneDateInIMFFixdate(request: String) throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send(request)
        let dates = try connection.readResponse().values("Date")

        #expect(dates.count == 1)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let date = try #require(dates.first.flatMap(formatter.date(from:)), "\(dates)")
        #expect(formatter.string(from: date) == dates.first)
        #expect(abs(date.timeIntervalSinceNow) < 300)
    }

    @Test func aStubsOwnDateIsTheOnlyDate() throws {
        stubs.stub(.get, "/dated").respond(.text("old", headers: ["Date": "Mon, 01 Jan 2024 00:00:00 GMT"]))
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /dated HTTP/1.1\r\nHost: x\r\n\r\n")

        #expect(try connection.readResponse().values("Date") == ["Mon, 01 Jan 2024 00:00:00 GMT"])
    }

    // MARK: HTTP/1.0 keep-alive

    @Test func anHTTP10ClientThatAsksToKeepTheConnectionIsToldItIsKept() throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let first = try connection.readResponse()
        connection.send("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let second = try connection.readResponse()

        #expect(first.values("Connection") == ["keep-alive"])
        #expect(second.text == "A")
    }

    @Test func anHTTP10ClientThatDoesNotAskIsToldTheConnectionCloses() throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /a HTTP/1.0\r\n\r\n")

        #expect(try connection.readResponse().values("Connection") == ["close"])
        #expect(connection.isClosedByServer())
    }

    @Test func anHTTP11AnswerHasNoConnectionLine() throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /a HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n")

        #expect(try connection.readResponse().values("Connection").isEmpty)
    }

    /// RFC 9112 section 6.1: no chunked coding for an HTTP/1.0 client; a streamed body ends at the close.
    @Test func aStreamedBodyToAnHTTP10ClientIsNotChunkedAndEndsAtTheClose() throws {
        stubs.stub(.get, "/feed").respond(.streamed([.text("ab"), .pause(0.01), .text("cde")]))
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("GET /feed HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let head = try connection.readResponse(toHead: true)
        let rest = connection.readUntilClosed()

        #expect(head.values("Transfer-Encoding").isEmpty)
        #expect(head.values("Connection") == ["close"])
        #expect(rest.ended && rest.count == 5)
    }
}
