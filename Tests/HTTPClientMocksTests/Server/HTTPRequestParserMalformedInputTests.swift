import Foundation
import HTTPClient
import Testing

@_spi(Engine) @testable import HTTPClientStubs

/// Bytes that are not a request the server reads: each is refused with the status the server
/// answers and a reason that names what was wrong, never a crash, a wrong split or a hang.
@Suite("HTTP request parser: malformed input")
struct HTTPRequestParserMalformedInputTests {
    static let small = HTTPServerLimits(maximumHeadBytes: 256, maximumHeaderCount: 4, maximumBodyBytes: 16)

    func status(_ text: String, limits: HTTPServerLimits = small) -> Int? {
        parse(text, limits: limits).error?.status
    }

    // MARK: Lines and the request line

    @Test(arguments: ["GET / HTTP/1.1\r\nHost: h\nX: y\r\n\r\n", "GET / HTTP/1.1\nHost: h\n\n", "GET / HTTP/1.1\r\nHost: h\r\n\n"])
    func aBareLFIsRefused(text: String) {
        let error = parse(text, crlf: false).error
        #expect(error?.status == 400)
        #expect(error?.reason.contains("bare LF") == true)
    }

    @Test func aBareCRIsRefused() {
        #expect(parse("GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n", crlf: false).error?.status == 400)
    }

    @Test(arguments: [
        "GET /", "GET  / HTTP/1.1", "GET / HTTP/1.1 ", " GET / HTTP/1.1", "GET /a b HTTP/1.1", "G\u{0}T / HTTP/1.1",
        "GET / http/1.1", "GET / HTTP/1.1x", "GET / HTTP/11", "G(T / HTTP/1.1", "GET foo HTTP/1.1", "GET ftp://h/a HTTP/1.1",
        "GET * HTTP/1.1", "GET http:/x HTTP/1.1",
    ])
    func aMalformedRequestLineIsA400(line: String) {
        #expect(status("\(line)\nHost: h\n\n") == 400)
    }

    @Test func aTargetWithANonASCIIByteIsA400() {
        #expect(parse(pieces: [wire("GET /caf") + [0xC3, 0xA9] + wire(" HTTP/1.1\nHost: h\n\n")]).error?.status == 400)
    }

    @Test(arguments: ["HTTP/2.0", "HTTP/0.9", "HTTP/3.1"])
    func aVersionOtherThan1xIsA505(version: String) {
        #expect(status("GET / \(version)\nHost: h\n\n") == 505)
    }

    @Test func connectIsA501() {
        #expect(status("CONNECT example.test:443 HTTP/1.1\nHost: example.test\n\n") == 501)
    }

    // MARK: Header lines

    @Test(arguments: [" two", "\ttwo", " X-B: two"])
    func aFoldedHeaderLineIsRefused(fold: String) {
        let error = parse("GET / HTTP/1.1\nHost: h\nX-A: one\n\(fold)\n\n").error
        #expect(error?.status == 400)
        #expect(error?.reason.contains("line folding") == true)
    }

    @Test func whitespaceBeforeAColonIsRefused() {
        #expect(status("GET / HTTP/1.1\nHost: h\nContent-Length : 3\n\nabc") == 400)
    }

    @Test(arguments: ["X-A", ": empty-name", "X A: b", "X-\u{E9}: b", "X-\u{0}: b", "X-A\u{7F}: b"])
    func aHeaderLineWithoutATokenNameIsA400(line: String) {
        #expect(status("GET / HTTP/1.1\nHost: h\n\(line)\n\n") == 400)
    }

    @Test(arguments: [0x00, 0x01, 0x0B, 0x1F, 0x7F] as [UInt8])
    func aControlByteInAValueIsA400(byte: UInt8) {
        #expect(parse(pieces: [wire("GET / HTTP/1.1\nHost: h\nX-A: a") + [byte] + wire("b\n\n")]).error?.status == 400)
    }

    @Test func anHTTP11RequestWithoutHostIsA400() {
        #expect(status("GET / HTTP/1.1\n\n") == 400)
    }

    @Test func twoHostLinesAreA400() {
        #expect(status("GET / HTTP/1.1\nHost: a\nHost: b\n\n") == 400)
    }

    // MARK: Framing and request smuggling

    @Test func contentLengthsThatDifferAreRefused() {
        #expect(status("POST / HTTP/1.1\nHost: h\nContent-Length: 3\nContent-Length: 4\n\nabcd") == 400)
    }

    @Test func contentLengthWithTransferEncodingIsRefused() {
        #expect(status("POST / HTTP/1.1\nHost: h\nContent-Length: 3\nTransfer-Encoding: chunked\n\n3\nabc\n0\n\n") == 400)
    }

    @Test(arguments: ["-1", "+3", "0x10", "1e3", "3 3", "", "3,", "٣"])
    func aContentLengthThatIsNotDigitsIsA400(value: String) {
        #expect(status("POST / HTTP/1.1\nHost: h\nContent-Length: \(value)\n\nabc") == 400)
    }

    @Test(arguments: ["17", "99999999999999999999999999999999"])
    func aContentLengthPastTheLimitIsA413BeforeTheBody(value: String) {
        #expect(status("POST / HTTP/1.1\nHost: h\nContent-Length: \(value)\n\n") == 413)
    }

    @Test(arguments: ["gzip", "gzip, chunked", "chunked, gzip", "identity"])
    func aTransferCodingOtherThanChunkedIsA501(coding: String) {
        #expect(status("POST / HTTP/1.1\nHost: h\nTransfer-Encoding: \(coding)\n\n0\n\n") == 501)
    }

    @Test(arguments: ["chunked, chunked", ""])
    func chunkedTwiceOrAnEmptyTransferEncodingIsA400(coding: String) {
        #expect(status("POST / HTTP/1.1\nHost: h\nTransfer-Encoding: \(coding)\n\n0\n\n") == 400)
    }

    // MARK: Chunked bodies

    func chunked(_ body: String) -> String { "POST / HTTP/1.1\nHost: h\nTransfer-Encoding: chunked\n\n" + body }

    @Test(arguments: ["zz\nab\n0\n\n", "\nab\n0\n\n", "-2\nab\n0\n\n", "2 x\nab\n0\n\n", "0x2\nab\n0\n\n", "2\nabc\n0\n\n"])
    func aBadChunkIsA400(body: String) {
        #expect(status(chunked(body)) == 400)
    }

    @Test(arguments: ["11\n", "ffffffffffffffffffffffff\n", "8000000000000000\n", "00000000000000000000000000011\n", "9\n123456789\n8\n"])
    func aChunkSizePastTheBodyLimitIsA413(body: String) {
        #expect(status(chunked(body)) == 413)
    }

    @Test func aControlByteInAChunkExtensionIsA400() {
        #expect(parse(pieces: [wire(chunked("2;a=")) + [0] + wire("\nab\n0\n\n")]).error?.status == 400)
    }

    @Test func trailersPastTheHeadLimitAreA431() {
        #expect(status(chunked("0\nX-T: \(String(repeating: "t", count: 300))\n\n")) == 431)
    }

    @Test func tooManyTrailerLinesAreA431() {
        #expect(status(chunked("0\n" + String(repeating: "X-T: t\n", count: 5) + "\n")) == 431)
    }

    // MARK: Limits

    @Test func aRequestLinePastTheLimitIsA414EvenBeforeItEnds() {
        #expect(status("GET /\(String(repeating: "a", count: 300))") == 414)
    }

    @Test func aHeaderLinePastTheLimitIsA431EvenBeforeItEnds() {
        #expect(status("GET / HTTP/1.1\nHost: h\nX-A: \(String(repeating: "a", count: 300))") == 431)
    }

    @Test func aHeadOfEmptyLinesPastTheLimitIsA431() {
        #expect(status(String(repeating: "\n", count: 200)) == 431)
    }

    @Test func moreHeaderLinesThanTheLimitAreA431() {
        #expect(status("GET / HTTP/1.1\nHost: h\n" + String(repeating: "X: y\n", count: 4) + "\n") == 431)
    }

    @Test func headerLinesUpToTheLimitAreAccepted() {
        #expect(parse("GET / HTTP/1.1\nHost: h\n" + String(repeating: "X: y\n", count: 3) + "\n", limits: Self.small).requests.count == 1)
    }

    @Test func aBodyUpToTheLimitIsAccepted() {
        #expect(parse(chunked("8\n12345678\n8\n12345678\n0\n\n"), limits: Self.small).requests.first?.body?.count == 16)
    }

    // MARK: After an error

    @Test func anErrorStaysAndTheBytesAfterItAreIgnored() {
        var parser = HTTPRequestParser()
        parser.append(wire("GET / HTTP/2.0\nHost: h\n\n"))
        #expect(throws: HTTPRequestParseError.self) { try parser.next() }
        parser.append(wire("GET / HTTP/1.1\nHost: h\n\n"))
        #expect((try? parser.next()) == nil)
        #expect(throws: HTTPRequestParseError(505, "HTTP/2.0 is not served; HTTP/1.0 and HTTP/1.1 are")) { try parser.next() }
    }

    @Test func aReasonQuotesHostileBytesOnOneLineAndShort() throws {
        let method = wire("G\u{1B}[31m") + Array(repeating: 0x41, count: 500) + [0xFF]
        let error = try #require(parse(pieces: [method + wire(" / HTTP/1.1\nHost: h\n\n")]).error)
        #expect(error.reason.contains("\\x1B[31mAAA"))
        #expect(!error.reason.contains("\n") && !error.reason.contains("\r") && !error.reason.contains("\u{1B}"))
        #expect(error.reason.count < 250)
    }

    /// Found by the fuzzer: 0x85 read as Latin-1 is U+0085, a line break to Swift's `isNewline`.
    @Test(arguments: [
        wire("POST / HTTP/1.1\nHost: h\nTransfer-Encoding: ") + [0x85] + wire("chunked\n\n"),
        wire("POST / HTTP/1.1\nHost: h\nContent-Length: 1") + [0x85] + wire("\n\n"),
        wire("POST / HTTP/1.1\nHost: h\nContent-Length: 1") + [0xE2, 0x80, 0xA8] + wire("\n\n"),
    ])
    func aReasonQuotingAHeaderValueIsOneLineWhateverItsBytes(_ request: [UInt8]) throws {
        let error = try #require(parse(pieces: [request]).error)
        #expect(error.reason.split(whereSeparator: \.isNewline).count == 1, "\(error.reason)")
        #expect(error.reason.contains("\\x"))
    }

    @Test func theRequestLineErrorQuotesTheLine() {
        #expect(parse("GET  /oops HTTP/1.1\nHost: h\n\n").error?.reason.contains("GET  /oops HTTP/1.1") == true)
    }
}
