import Foundation
import HTTPClient
import Testing

@_spi(Engine) @testable import HTTPClientStubs

/// Requests the parser reads: framing, splits, pipelining, targets, connection options, and
/// the URLRequest the stub engine resolves.
@Suite("HTTP request parser")
struct HTTPRequestParserTests {
    static let post = "POST /users?page=2 HTTP/1.1\nHost: example.test\nContent-Length: 5\nX-Trace: a\nX-Trace: b\n\nhello"
    static let chunked =
        "PUT /upload HTTP/1.1\nHost: h\nTransfer-Encoding: chunked\n\n5;ext=1\nhello\n6\n world\n0\nTrailer-One: x\n\n"

    @Test func aGetWithoutBodyGivesItsHeadThenTheRequestWithNoBody() throws {
        let outcome = parse("GET /a HTTP/1.1\nHost: h\n\n")
        #expect(outcome.error == nil)
        let head = HTTPRequestHead(method: "GET", target: "/a", version: .http11, headers: [.init(name: "Host", value: "h")])
        #expect(outcome.events == [.head(head), .request(ParsedRequest(head: head, body: nil))])
    }

    @Test func theHeadComesOutBeforeTheBodyArrives() {
        let outcome = parse("POST /a HTTP/1.1\nHost: h\nContent-Length: 3\nExpect: 100-continue\n\n")
        guard case .head(let head) = outcome.events.first else { return #expect(Bool(false), "no head: \(outcome)") }
        #expect(outcome.events.count == 1)
        #expect(head.expectsContinue)
    }

    @Test func aContentLengthBodyIsReadWholeAndNoFurther() throws {
        let outcome = parse(Self.post + "GET")
        let request = try #require(outcome.requests.first)
        #expect(request.body == Data("hello".utf8))
        #expect(request.head.values(of: "x-trace") == ["a", "b"])
        #expect(outcome.requests.count == 1)
    }

    @Test func aChunkedBodyIsDecodedWithItsExtensionsIgnoredAndItsTrailersDropped() throws {
        let request = try #require(parse(Self.chunked).requests.first)
        #expect(request.body == Data("hello world".utf8))
        #expect(request.head.values(of: "Trailer-One").isEmpty)
    }

    @Test func aZeroContentLengthGivesAnEmptyBodyNotNone() throws {
        let request = try #require(parse("POST / HTTP/1.1\nHost: h\nContent-Length: 0\n\n").requests.first)
        #expect(request.body == Data())
    }

    @Test(arguments: [post, chunked, "GET / HTTP/1.0\n\n"])
    func everySplitGivesWhatTheWholeGives(text: String) {
        let bytes = wire(text)
        let whole = parse(pieces: [bytes])
        #expect(whole.error == nil && whole.requests.count == 1)
        #expect(parse(pieces: bytes.map { [$0] }) == whole)
        for cut in 0...bytes.count {
            #expect(parse(pieces: [Array(bytes[..<cut]), Array(bytes[cut...])]) == whole, "cut at \(cut)")
        }
    }

    @Test func pipelinedRequestsInOneBufferComeOutInOrder() {
        let outcome = parse(Self.post + Self.chunked + "GET /last HTTP/1.1\nHost: h\n\n")
        #expect(outcome.requests.map(\.head.target) == ["/users?page=2", "/upload", "/last"])
        #expect(outcome.requests.map(\.body) == [Data("hello".utf8), Data("hello world".utf8), nil])
    }

    @Test func emptyLinesBeforeARequestLineAreIgnored() {
        #expect(parse("\n\nGET / HTTP/1.1\nHost: h\n\n").requests.count == 1)
    }

    @Test(arguments: ["PURGE", "get", "M-SEARCH", "X!#$%&'*+.^_`|~"])
    func aMethodIsAnyToken(method: String) {
        #expect(parse("\(method) / HTTP/1.1\nHost: h\n\n").requests.first?.head.method == method)
    }

    @Test func anAbsoluteTargetIsKept() {
        #expect(
            parse("GET http://example.test/a?b=1 HTTP/1.1\nHost: example.test\n\n").requests.first?.head.target
                == "http://example.test/a?b=1")
    }

    @Test func anAsteriskIsAcceptedForOptions() {
        #expect(parse("OPTIONS * HTTP/1.1\nHost: h\n\n").requests.first?.head.target == "*")
    }

    @Test func aValueIsTrimmedAndKeepsItsInnerSpaces() {
        #expect(parse("GET / HTTP/1.1\nHost: h\nX-A: \t one  two \t\n\n").requests.first?.head.values(of: "X-A") == ["one  two"])
    }

    @Test func aValueThatIsNotUTF8IsReadAsLatin1ByteForByte() {
        let bytes = wire("GET / HTTP/1.1\nHost: h\nX-A: caf") + [0xE9] + wire("\n\n")
        #expect(parse(pieces: [bytes]).requests.first?.head.values(of: "X-A") == ["caf\u{E9}"])
    }

    @Test func aUTF8ValueIsReadAsUTF8() {
        #expect(parse("GET / HTTP/1.1\nHost: h\nX-A: caf\u{E9}\n\n").requests.first?.head.values(of: "X-A") == ["caf\u{E9}"])
    }

    @Test(arguments: [
        ("HTTP/1.1", "", true), ("HTTP/1.1", "Connection: close\n", false), ("HTTP/1.1", "Connection: Upgrade, CLOSE\n", false),
        ("HTTP/1.0", "", false), ("HTTP/1.0", "Connection: Keep-Alive\n", true),
    ])
    func keepAliveFollowsTheVersionAndTheConnectionHeader(version: String, line: String, keepsAlive: Bool) {
        #expect(parse("GET / \(version)\nHost: h\n\(line)\n").requests.first?.head.keepsAlive == keepsAlive)
    }

    @Test(arguments: [("HTTP/1.1", "100-Continue", true), ("HTTP/1.0", "100-continue", false), ("HTTP/1.1", "something", false)])
    func continueIsExpectedOnlyByHTTP11WithExpect100Continue(version: String, expect: String, expected: Bool) {
        #expect(
            parse("POST / \(version)\nHost: h\nExpect: \(expect)\nContent-Length: 1\n\nx").requests.first?.head.expectsContinue == expected)
    }

    @Test func aRepeatedEqualContentLengthIsAccepted() {
        #expect(parse("POST / HTTP/1.1\nHost: h\nContent-Length: 2, 2\nContent-Length: 2\n\nab").requests.first?.body == Data("ab".utf8))
    }

    @Test func aHeadSentOneByteAtATimeIsScannedOnce() {
        let bytes = wire(
            "GET / HTTP/1.1\nHost: h\n" + String(repeating: "X-Long: \(String(repeating: "v", count: 200))\n", count: 250) + "\n")
        var parser = HTTPRequestParser()
        var requests = 0
        for byte in bytes {
            parser.append([byte])
            while case .some(let event) = try? parser.next() { if case .request = event { requests += 1 } }
        }
        #expect(requests == 1)
        #expect(parser.bytesExamined == bytes.count)
    }

    @Test func aRequestCutShortIsInsideARequest() {
        var parser = HTTPRequestParser()
        #expect(!parser.isInsideRequest)
        parser.append(wire("GET / HT"))
        #expect((try? parser.next()) == .some(nil))
        #expect(parser.isInsideRequest)
    }

    @Test func aConnectionBetweenRequestsIsNotInsideARequest() {
        var parser = HTTPRequestParser()
        parser.append(wire("GET / HTTP/1.1\nHost: h\n\n"))
        while case .some(.some) = try? parser.next() {}
        #expect(!parser.isInsideRequest)
    }

    @Test(arguments: [post, chunked])
    func anAcceptedRequestWrittenBackReadsTheSame(text: String) throws {
        let request = try #require(parse(text).requests.first)
        #expect(parse(pieces: [request.serialized()]).requests == [request])
    }

    // MARK: The URLRequest the engine resolves

    static let base = URL(string: "http://127.0.0.1:8080")!

    @Test func anOriginTargetIsJoinedToTheHostTheClientAddressed() throws {
        let request = try #require(parse(Self.post).requests.first).urlRequest(base: Self.base)
        #expect(request.url?.absoluteString == "http://example.test/users?page=2")
        #expect(request.httpMethod == "POST")
        #expect(request.httpBody == Data("hello".utf8))
        #expect(request.value(forHTTPHeaderField: "X-Trace") == "a, b")
    }

    @Test(arguments: [
        ("192.168.1.20:8080", "http://192.168.1.20:8080/v1?q=1"), ("LocalHost", "http://LocalHost/v1?q=1"),
        ("[::1]:9000", "http://[::1]:9000/v1?q=1"), ("my_box.local:", "http://my_box.local/v1?q=1"),
    ])
    func theHostLineGivesTheURLItsHostAndPort(host: String, url: String) throws {
        let parsed = try #require(parse("GET /v1?q=1 HTTP/1.1\nHost: \(host)\n\n").requests.first)
        #expect(try parsed.urlRequest(base: Self.base).url?.absoluteString == url)
    }

    @Test(arguments: ["GET /v1?q=1 HTTP/1.0\n\n", "GET /v1?q=1 HTTP/1.1\nHost: a%41b\n\n", "GET /v1?q=1 HTTP/1.1\nHost: a,b:80\n\n"])
    func withoutAPlainHostLineTheURLIsTheServersAddress(text: String) throws {
        let parsed = try #require(parse(text).requests.first)
        #expect(try parsed.urlRequest(base: Self.base).url?.absoluteString == "http://127.0.0.1:8080/v1?q=1")
    }

    @Test func anOriginTargetIsJoinedToAnIPv6Address() throws {
        let parsed = try #require(parse("GET /v1?q=1 HTTP/1.0\n\n").requests.first)
        let base = try #require(URL(string: "http://[::1]:8080"))
        #expect(try parsed.urlRequest(base: base).url?.absoluteString == "http://[::1]:8080/v1?q=1")
    }

    @Test func anOriginTargetReplacesThePathOfTheBase() throws {
        let parsed = try #require(parse("GET /v1 HTTP/1.0\n\n").requests.first)
        let base = try #require(URL(string: "http://127.0.0.1:8080/ignored?x=1"))
        #expect(try parsed.urlRequest(base: base).url?.absoluteString == "http://127.0.0.1:8080/v1")
    }

    @Test func cookieLinesAreJoinedWithSemicolons() throws {
        let parsed = try #require(parse("GET / HTTP/1.1\nHost: h\nCookie: a=1\ncookie: b=2\n\n").requests.first)
        #expect(try parsed.urlRequest(base: Self.base).value(forHTTPHeaderField: "Cookie") == "a=1; b=2")
    }

    /// Among hundreds of header lines, repeated names (in any case) are joined as among a few,
    /// under the first spelling, Cookie lines with semicolons.
    @Test func repeatedLinesAmongHundredsAreJoinedAsAmongAFew() throws {
        let filler = (0..<200).map { "X-Filler-\($0): \($0)\n" }.joined()
        let head = "GET / HTTP/1.1\nHost: h\nX-Twice: 1\nCookie: a=1\n" + filler + "x-twice: 2\ncookie: b=2\nX-TWICE: 3\n\n"
        let parsed = try #require(parse(head).requests.first)
        let request = try parsed.urlRequest(base: Self.base)
        #expect(request.value(forHTTPHeaderField: "X-Twice") == "1, 2, 3")
        #expect(request.value(forHTTPHeaderField: "Cookie") == "a=1; b=2")
        #expect(request.value(forHTTPHeaderField: "X-Filler-199") == "199")
        #expect(request.allHTTPHeaderFields?.count == 203)
    }

    @Test func anAbsoluteTargetIsTheURL() throws {
        let parsed = try #require(parse("GET https://api.example.test/v1 HTTP/1.1\nHost: api.example.test\n\n").requests.first)
        #expect(try parsed.urlRequest(base: Self.base).url?.absoluteString == "https://api.example.test/v1")
    }

    @Test func anAsteriskIsTheOriginTheClientAddressed() throws {
        let parsed = try #require(parse("OPTIONS * HTTP/1.1\nHost: h:8080\n\n").requests.first)
        #expect(try parsed.urlRequest(base: Self.base).url?.absoluteString == "http://h:8080")
    }

    @Test func aRequestWithoutBodyHasNoHTTPBody() throws {
        let parsed = try #require(parse("GET / HTTP/1.1\nHost: h\n\n").requests.first)
        #expect(try parsed.urlRequest(base: Self.base).httpBody == nil)
    }
}
