import Foundation
import HTTPClientMocks
import Testing

@_spi(Engine) @testable import HTTPClientStubs

/// What the public HTTP/1.1 conformance suites send a server (malformed request lines, header
/// syntax, Host, framing, request smuggling, limits), sent to a StubServer on a real socket.
///
/// Refused input gets the status RFC 9110 and 9112 call for and the connection closes; nothing
/// of it reaches the stubs. Cases those suites share with the parser's own tests (bare LF and
/// CR, folding, whitespace before a colon, control bytes, non-token names, missing and doubled
/// Host, lengths that differ or sit beside Transfer-Encoding, bad chunk sizes, versions other than
/// 1.x) are in `HTTPRequestParserMalformedInputTests`, `StubServerMalformedInputTests` and
/// `StubServerHostileClientTests`; this suite holds the rest.
@Suite("HTTP/1.1 conformance: request line, headers, framing, limits")
struct HTTP11ConformanceTests {
    /// Bytes a client sends, named for the rule they break or keep.
    struct Input: CustomTestStringConvertible, Sendable {
        let rule: String
        let bytes: String
        let status: Int

        init(_ rule: String, _ bytes: String, _ status: Int) {
            self.rule = rule
            self.bytes = bytes
            self.status = status
        }

        var testDescription: String { "\(rule) -> \(status)" }
    }

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

    /// Sends `input` on a new connection; its answer is refused and closed, and no stub saw it.
    private func expectRefusal(_ input: Input, limits: HTTPServerLimits = HTTPServerLimits()) throws {
        let server = try server { $0.limits = limits }
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send(input.bytes)
        let response = try connection.readResponse()
        #expect(response.status == input.status, "\(response.text)")
        #expect(response.values("Connection") == ["close"])
        #expect(connection.isClosedByServer())
        #expect(stubs.requests.isEmpty)
    }

    /// Sends `input` on a new connection and returns the answer and what the stubs recorded.
    private func answer(to input: Input) throws -> (response: RawConnection.Response, requests: [RecordedRequest]) {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        connection.send(input.bytes)
        let response = try connection.readResponse(toHead: input.bytes.hasPrefix("OPTIONS *"))
        #expect(response.status == input.status, "\(response.text)")
        return (response, stubs.requests)
    }

    // MARK: Request line

    @Test(arguments: [
        Input("a request line without a version (HTTP/0.9)", "GET /\r\n\r\n", 400),
        Input("a request line without a target", "GET HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        Input("a tab between method and target", "GET\t/a HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        Input("a space inside the target", "GET /p a HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        Input("a version with leading zeros", "GET /a HTTP/01.01\r\nHost: x\r\n\r\n", 400),
        Input("a version without a minor number", "GET /a HTTP/1\r\nHost: x\r\n\r\n", 400),
        Input("a version with a space in it", "GET /a HTTP/ 1.1\r\nHost: x\r\n\r\n", 400),
        Input("a fragment in the target", "GET /a#section HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        Input("a fragment in an absolute target", "GET http://x/a#section HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        Input("text before the method", "Extra lineGET /a HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        Input("a line of spaces for a request line", "   \r\n\r\n", 400),
        Input("the asterisk with a method other than OPTIONS", "GET * HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        Input("an HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505),
        Input("a major version the server does not speak", "GET /a HTTP/9.9\r\nHost: x\r\n\r\n", 505),
    ])
    func aMalformedRequestLineIsRefused(input: Input) throws {
        try expectRefusal(input)
    }

    @Test func aLaterMinorVersionIsReadAsHTTP11() throws {
        let (response, requests) = try answer(to: Input("HTTP/1.2", "GET /a HTTP/1.2\r\nHost: x\r\n\r\n", 200))
        #expect(response.text == "A")
        #expect(requests.count == 1)
    }

    @Test func anAbsoluteFormTargetIsAnsweredAtItsPath() throws {
        let (response, requests) = try answer(
            to: Input("absolute form", "GET http://localhost:8080/a HTTP/1.1\r\nHost: localhost:8080\r\n\r\n", 200))
        #expect(response.text == "A")
        #expect(requests.map(\.url.absoluteString) == ["http://localhost:8080/a"])
    }

    @Test func optionsAsteriskIsAnsweredByTheServerWithoutTheStubs() throws {
        let (response, requests) = try answer(to: Input("OPTIONS *", "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", 204))
        #expect(response.values("Content-Length").isEmpty)
        #expect(requests.isEmpty)
        #expect(failures.all.isEmpty)
    }

    @Test func aTargetPastTheHeadLimitIsA414() throws {
        try expectRefusal(
            Input("a long target", "GET /\(String(repeating: "a", count: 2000)) HTTP/1.1\r\nHost: x\r\n\r\n", 414),
            limits: HTTPServerLimits(maximumHeadBytes: 1024))
    }

    @Test func aMethodPastTheHeadLimitIsA431() throws {
        try expectRefusal(
            Input("a long method", "\(String(repeating: "A", count: 2000)) / HTTP/1.1\r\nHost: x\r\n\r\n", 431),
            limits: HTTPServerLimits(maximumHeadBytes: 1024))
    }

    // MARK: Header lines and Host

    @Test(arguments: [
        Input("brackets in a header name", "GET /a HTTP/1.1\r\nHost: x\r\nX-Invalid[]: test\r\n\r\n", 400),
        Input("a line of one space before the headers", "GET /a HTTP/1.1\r\n \r\nHost: x\r\n\r\n", 400),
        Input("a bell in a header value", "GET /a HTTP/1.1\r\nHost: x\r\nX-Bell: test\u{7}\r\n\r\n", 400),
        Input("a bare CR inside a header value", "GET /a HTTP/1.1\r\nHost: x\r\nX-Test: val\rue\r\n\r\n", 400),
        Input("a CR that ends the request line", "GET /a HTTP/1.1\rHost: x\r\n\r\n", 400),
        Input("two Host lines with the same value", "GET /a HTTP/1.1\r\nHost: x\r\nHost: x\r\n\r\n", 400),
        Input("an empty Host", "GET /a HTTP/1.1\r\nHost: \r\n\r\n", 400),
        Input("two hosts in one Host line", "GET /a HTTP/1.1\r\nHost: localhost:8080, other.example\r\n\r\n", 400),
        Input("a Host with a path", "GET /a HTTP/1.1\r\nHost: localhost:8080/path\r\n\r\n", 400),
        Input("a Host with a user", "GET /a HTTP/1.1\r\nHost: user@localhost:8080\r\n\r\n", 400),
        Input("a Host whose port is not digits", "GET /a HTTP/1.1\r\nHost: localhost:http\r\n\r\n", 400),
        Input("a Host with two ports", "GET /a HTTP/1.1\r\nHost: localhost:80:80\r\n\r\n", 400),
        Input("a Host with an unclosed IPv6 bracket", "GET /a HTTP/1.1\r\nHost: [::1\r\n\r\n", 400),
        Input("a Host with a bad percent-encoding", "GET /a HTTP/1.1\r\nHost: a%zz\r\n\r\n", 400),
        Input(
            "a Host only after a chunked body, none before it",
            "POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nHost: x\r\n\r\n", 400),
    ])
    func aMalformedHeaderOrHostIsRefused(input: Input) throws {
        try expectRefusal(input)
    }

    @Test(arguments: [
        Input("a Host name in any case, after a tab, and an empty value", "GET /a HTTP/1.1\r\nhoSt:\tx\r\nX-Empty:\r\n\r\n", 200),
        Input("an IPv6 Host", "GET /a HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n", 200),
        Input("HTTP/1.0 without Host", "GET /a HTTP/1.0\r\n\r\n", 200),
        Input("empty lines before the request line", "\r\n\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\n", 200),
    ])
    func aWellFormedHeadIsAnswered(input: Input) throws {
        let (response, requests) = try answer(to: input)
        #expect(response.text == "A")
        #expect(requests.count == 1)
    }

    @Test func aHostInTheTrailersChangesNothing() throws {
        let (response, requests) = try answer(
            to: Input(
                "a Host trailer",
                "POST /a HTTP/1.1\r\nHost: x:1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nHost: evil.example\r\n\r\n", 200))
        #expect(response.text == "posted")
        #expect(requests.map(\.url.absoluteString) == ["http://x:1/a"])
        #expect(requests.first?.body == Data("hello".utf8))
    }

    @Test func anHTTP10RequestThatExpectsContinueGetsNoInterimAnswer() throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("POST /a HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello")

        #expect(try connection.readResponse().status == 200)
    }

    // MARK: Framing

    @Test(arguments: [
        Input("Transfer-Encoding on HTTP/1.0", "POST /a HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 400),
        Input(
            "Transfer-Encoding on HTTP/1.0 with a length",
            "POST /a HTTP/1.0\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\nhello",
            400),
        Input(
            "Transfer-Encoding in another case beside a length",
            "POST /a HTTP/1.1\r\nHost: x\r\ncontent-LengtH: 5\r\nTransFer-Encoding: Chunked\r\n\r\nhello", 400),
        Input("two lengths in one line", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 10\r\n\r\nhello", 400),
        Input("a negative zero length", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: -0\r\n\r\n", 400),
        Input("an underscore in a length", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 1_0\r\n\r\nhelloworld", 400),
        Input("an empty length", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: \r\n\r\n", 400),
        Input(
            "a chunk size with a leading space",
            "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n 5\r\nhello\r\n0\r\n\r\n", 400),
        Input(
            "a chunk size with a plus sign", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n+5\r\nhello\r\n0\r\n\r\n",
            400),
        Input(
            "an underscore in a chunk size",
            "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1_0\r\nhelloworld\r\n0\r\n\r\n", 400),
        Input("a chunk without its CRLF", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello0\r\n\r\n", 400),
        Input(
            "a bare semicolon after a chunk size",
            "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;\r\nhello\r\n0\r\n\r\n", 400),
        Input(
            "a chunk extension whose name is not a token",
            "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;bad[=x\r\nhello\r\n0\r\n\r\n",
            400),
        Input(
            "a chunk extension with an unclosed quote",
            "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;a=\"b\r\nhello\r\n0\r\n\r\n",
            400),
        Input(
            "a chunk extension with whitespace after it",
            "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b \r\nhello\r\n0\r\n\r\n",
            400),
        Input(
            "a chunk line ending in a bare CR", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\rhello\r\n0\r\n\r\n",
            400),
        Input(
            "a chunk size past any integer",
            "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFF0\r\nhello\r\n0\r\n\r\n",
            413),
        Input("a transfer coding that is not chunked", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n", 501),
        Input("chunked with parameters", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked;ext=val\r\n\r\n0\r\n\r\n", 501),
    ])
    func aBodyWhoseFramingIsFaultyIsRefused(input: Input) throws {
        try expectRefusal(input)
    }

    @Test(arguments: [
        Input("an extension on each chunk", "5;ext=value\r\nhel\"o\r\n6; a = \"q\\\"s\" ;b\r\n world\r\n0\r\n\r\n", 200),
        Input("hexadecimal sizes in upper case", "A\r\nhel\"o worl\r\n1\r\nd\r\n0\r\n\r\n", 200),
        Input("trailers after the last chunk", "B\r\nhel\"o world\r\n0\r\nX-Checksum: abc\r\n\r\n", 200),
    ])
    func aWellFormedChunkedBodyReachesTheStubDecoded(input: Input) throws {
        let head = "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        let (response, requests) = try answer(to: Input(input.rule, head + input.bytes, input.status))
        #expect(response.text == "posted")
        #expect(requests.first.map { String(decoding: $0.body, as: UTF8.self) } == "hel\"o world")
        #expect(requests.first?.headers["X-Checksum"] == nil)
    }

    @Test(arguments: [
        Input("the same length twice in one line", "Content-Length: 5, 5", 200),
        Input("a length with leading zeros", "Content-Length: 005", 200),
        Input("a tab before the length", "Content-Length:\t5", 200),
    ])
    func aLengthThatSaysOneNumberIsRead(input: Input) throws {
        let (response, requests) = try answer(
            to: Input(input.rule, "POST /a HTTP/1.1\r\nHost: x\r\n\(input.bytes)\r\n\r\nhello", input.status))
        #expect(response.text == "posted")
        #expect(requests.first?.body == Data("hello".utf8))
    }

    // MARK: Request smuggling

    @Test func bytesAfterAZeroLengthBodyAreTheNextRequest() throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        connection.send("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\nXGET /a HTTP/1.1\r\nHost: x\r\n\r\n")

        #expect(try connection.readResponse().text == "posted")
        #expect(try connection.readResponse().status == 501)
        #expect(stubs.requests.map(\.method) == [.post])
    }

    @Test func aGetsBodyIsReadAsItsBodyAndNotAsARequest() throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)
        let hidden = "GET /hidden HTTP/1.1\r\nHost: x\r\n\r\n"

        connection.send(
            "GET /a HTTP/1.1\r\nHost: x\r\nContent-Length: \(hidden.utf8.count)\r\n\r\n\(hidden)GET /a HTTP/1.1\r\nHost: x\r\n\r\n")

        #expect(try connection.readResponse().text == "A")
        #expect(try connection.readResponse().text == "A")
        #expect(stubs.requests.map(\.path) == ["/a", "/a"])
    }

    @Test func aChunkedBodyLongerThanALengthBesideItIsRefusedWithItsSmuggledRequest() throws {
        try expectRefusal(
            Input(
                "TE.CL",
                "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n2b\r\nGET /hidden HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n\r\n0\r\n\r\n",
                400))
    }

    // MARK: Requests in pieces

    @Test func aRequestSentInPiecesIsAnsweredOnlyOnceWhole() throws {
        let server = try server()
        defer { server.stop() }
        let connection = try RawConnection(port: server.port)

        for piece in ["G", "ET ", "/a", " HTTP/1.1", "\r", "\nHos", "t:", " x", "\r\n", "\r"] {
            connection.send(piece)
            // The piece is in; nothing may be answered from a part of a request.
            #expect(!connection.hasBytes(within: 20), "answered after \(piece.debugDescription)")
        }
        connection.send("\n")

        #expect(try connection.readResponse().text == "A")
    }
}
