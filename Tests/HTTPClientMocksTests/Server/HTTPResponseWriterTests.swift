import Foundation
import HTTPClient
import Testing

@_spi(Engine) @testable import HTTPClientStubs

/// The bytes the server writes: framing, HEAD, interim and canned answers, and stub headers that
/// can never split a response.
@Suite("HTTP response writer")
struct HTTPResponseWriterTests {
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// A fixed `Date`, so a whole head can be compared.
    static let date = "Sun, 06 Nov 1994 08:49:37 GMT"

    @Test func aResponseHasItsStatusLineHeadersLengthAndBody() {
        let bytes = HTTPResponseWriter.response(
            status: 201, headers: [.init(name: "Content-Type", value: "text/plain")], body: Data("hi".utf8), method: "POST",
            connection: .none, date: Self.date)
        #expect(text(bytes) == "HTTP/1.1 201 Created\r\nDate: \(Self.date)\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi")
    }

    @Test func eachHeaderLineOfTheStubStaysItsOwnLine() {
        let head = HTTPResponseWriter.head(
            status: 200, headers: [.init(name: "Set-Cookie", value: "a=1; Path=/"), .init(name: "Set-Cookie", value: "b=2")],
            framing: .length(0), connection: .none, date: Self.date)
        #expect(text(head).contains("\r\nSet-Cookie: a=1; Path=/\r\nSet-Cookie: b=2\r\n"))
    }

    @Test(arguments: ["a\r\nInjected: yes", "a\nInjected: yes", "a\rInjected: yes", "a\u{0}Injected: yes"])
    func eachLineBreakOrNULInAValueBecomesASpace(value: String) {
        let head = text(
            HTTPResponseWriter.head(
                status: 200, headers: [.init(name: "X-A", value: value)], framing: .length(0), connection: .none, date: Self.date))
        #expect(head.contains("\r\nX-A: a"))
        #expect(!head.contains("\nInjected") && !head.contains("\rInjected") && !head.contains("\u{0}"))
    }

    @Test(arguments: ["X-A\r\nInjected", "X A", "X-A:", "", "X-\u{E9}", "X\u{0}"])
    func aHeaderWhoseNameIsNotATokenIsLeftOut(name: String) {
        let head = text(
            HTTPResponseWriter.head(
                status: 200, headers: [.init(name: name, value: "v")], framing: .length(0), connection: .none, date: Self.date))
        #expect(head == "HTTP/1.1 200 OK\r\nDate: \(Self.date)\r\nContent-Length: 0\r\n\r\n")
    }

    @Test func theStubsOwnFramingLinesAreReplacedByTheWritersOwn() {
        let headers: [HTTPHeaders.Field] = [
            .init(name: "content-length", value: "999"), .init(name: "Transfer-Encoding", value: "chunked"),
            .init(name: "Connection", value: "keep-alive"),
        ]
        let bytes = HTTPResponseWriter.response(
            status: 200, headers: headers, body: Data("abc".utf8), method: "GET", connection: .close, date: Self.date)
        #expect(text(bytes) == "HTTP/1.1 200 OK\r\nDate: \(Self.date)\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc")
    }

    @Test func aChunkedBodyIsSizedChunksThenTheLastChunk() {
        let head = HTTPResponseWriter.head(status: 200, headers: [], framing: .chunked, connection: .none, date: Self.date)
        let body = HTTPResponseWriter.chunk(Array(repeating: UInt8(ascii: "x"), count: 26)) + HTTPResponseWriter.lastChunk
        #expect(
            text(head + body)
                == "HTTP/1.1 200 OK\r\nDate: \(Self.date)\r\nTransfer-Encoding: chunked\r\n\r\n1a\r\n\(String(repeating: "x", count: 26))\r\n0\r\n\r\n"
        )
    }

    @Test func anEmptyChunkWritesNothingRatherThanEndingTheBody() {
        #expect(HTTPResponseWriter.chunk([UInt8]()).isEmpty)
    }

    @Test func aHeadAnswerHasTheGETsLengthAndNoBody() {
        let bytes = HTTPResponseWriter.response(
            status: 200, headers: [], body: Data("hello".utf8), method: "HEAD", connection: .none, date: Self.date)
        #expect(text(bytes) == "HTTP/1.1 200 OK\r\nDate: \(Self.date)\r\nContent-Length: 5\r\n\r\n")
    }

    @Test func aHeadAnswerWithoutBodyKeepsTheStubsContentLength() {
        let bytes = HTTPResponseWriter.response(
            status: 200, headers: [.init(name: "Content-Length", value: "1234")], body: Data(), method: "HEAD", connection: .none,
            date: Self.date)
        #expect(text(bytes) == "HTTP/1.1 200 OK\r\nDate: \(Self.date)\r\nContent-Length: 1234\r\n\r\n")
    }

    @Test(arguments: [204, 304, 103])
    func aBodilessStatusHasNoBodyAndNoLength(status: Int) {
        let bytes = HTTPResponseWriter.response(
            status: status, headers: [], body: Data("ignored".utf8), method: "GET", connection: .none, date: Self.date)
        #expect(text(bytes) == "HTTP/1.1 \(status) \(HTTPResponseWriter.reasonPhrase(for: status))\r\nDate: \(Self.date)\r\n\r\n")
    }

    @Test func continueIsAnInterimStatusLineAlone() {
        #expect(text(HTTPResponseWriter.continueResponse) == "HTTP/1.1 100 Continue\r\n\r\n")
    }

    @Test func aParseErrorIsAnsweredWithItsStatusItsReasonAndClose() {
        let bytes = HTTPResponseWriter.errorResponse(
            HTTPRequestParseError(431, "the request head passes the limit of 10 bytes"), date: Self.date)
        #expect(
            text(bytes)
                == "HTTP/1.1 431 Request Header Fields Too Large\r\nDate: \(Self.date)\r\nContent-Type: text/plain; charset=utf-8\r\n"
                + "Content-Length: 46\r\nConnection: close\r\n\r\nthe request head passes the limit of 10 bytes\n")
    }

    @Test func aDateIsWrittenInIMFFixdate() {
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(1_709_251_199) == "Thu, 29 Feb 2024 23:59:59 GMT")
    }

    @Test func theStubsOwnDateIsKeptAndNoSecondIsAdded() {
        let head = text(
            HTTPResponseWriter.head(
                status: 200, headers: [.init(name: "date", value: "Mon, 01 Jan 2024 00:00:00 GMT")], framing: .length(0),
                connection: .none, date: Self.date))
        #expect(head == "HTTP/1.1 200 OK\r\ndate: Mon, 01 Jan 2024 00:00:00 GMT\r\nContent-Length: 0\r\n\r\n")
    }

    @Test func aKeptAliveHTTP10ConnectionIsSaidToBeKeptAlive() {
        let head = text(HTTPResponseWriter.head(status: 200, headers: [], framing: .length(0), connection: .keepAlive, date: Self.date))
        #expect(head == "HTTP/1.1 200 OK\r\nDate: \(Self.date)\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n")
    }

    @Test(arguments: [(599, "Server Error"), (499, "Client Error"), (299, "Success"), (103, "Early Hints"), (418, "I'm a teapot")])
    func aStatusWithoutARegisteredPhraseIsNamedByItsClass(status: Int, phrase: String) {
        let head = text(HTTPResponseWriter.head(status: status, headers: [], framing: .length(0), connection: .none, date: Self.date))
        #expect(head.hasPrefix("HTTP/1.1 \(status) \(phrase)\r\n"))
    }

    @Test func everyStatusFrom100To599HasAPhrase() {
        for status in 100...599 {
            #expect(!HTTPResponseWriter.reasonPhrase(for: status).isEmpty, "\(status)")
        }
    }

    @Test(arguments: [(42, "HTTP/1.1 042 \r\n"), (0, "HTTP/1.1 000 \r\n"), (999, "HTTP/1.1 999 \r\n")])
    func aStatusOfThreeDigitsOutsideTheClassesIsWrittenAsGiven(status: Int, line: String) {
        let head = text(HTTPResponseWriter.head(status: status, headers: [], framing: .length(0), connection: .none, date: Self.date))
        #expect(head.hasPrefix(line))
    }

    @Test(arguments: [-1, 1000])
    func aStatusThatDoesNotFitThreeDigitsIsWrittenAs500(status: Int) {
        #expect(
            text(HTTPResponseWriter.head(status: status, headers: [], framing: .length(0), connection: .none, date: Self.date)).hasPrefix(
                "HTTP/1.1 500 Internal Server Error\r\n"))
    }

    @Test func aReasonPhraseIsWrittenAsGivenWithoutItsControlCharacters() {
        let head = text(
            HTTPResponseWriter.head(
                status: 200, reason: "Fine\r\nX-Injected: 1", headers: [], framing: .length(0), connection: .none, date: Self.date))
        #expect(head.hasPrefix("HTTP/1.1 200 Fine  X-Injected: 1\r\nDate: "))
    }

    @Test func aStubsOwnFramingIsWrittenAsGivenAndNoneIsAdded() {
        let head = text(
            HTTPResponseWriter.head(
                status: 200, headers: [.init(name: "Content-Length", value: "10"), .init(name: "Connection", value: "keep-alive")],
                framing: .asGiven, connection: .close, date: Self.date))
        #expect(head == "HTTP/1.1 200 OK\r\nDate: \(Self.date)\r\nContent-Length: 10\r\nConnection: keep-alive\r\n\r\n")
    }
}
