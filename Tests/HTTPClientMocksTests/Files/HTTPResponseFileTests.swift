import Foundation
import HTTPClient
import HTTPClientMocks
@_spi(Engine) import HTTPClientStubs
import Testing

@Suite("The .http format")
struct HTTPResponseFileTests {
    func parse(_ text: String, file: String = "test.http") throws -> HTTPResponseFile {
        try HTTPResponseFile(parsing: Data(text.utf8), file: file)
    }

    // The four shapes of the research file.

    @Test func statusHeadersAndJSONBody() throws {
        let file = try parse("HTTP/1.1 201 CREATED\nContent-Type: application/json\nLocation: /u/7\n\n{\"id\": 7}\n")
        #expect(file.statusCode == 201)
        #expect(file.headers["content-type"] == "application/json")
        #expect(file.headers["Location"] == "/u/7")
        #expect(file.body == Data("{\"id\": 7}\n".utf8))
    }

    @Test func statusAndHeadersWithNoBody() throws {
        let file = try parse("HTTP/1.1 304 Not Modified\nETag: \"v2\"\n\n")
        #expect(file.statusCode == 304)
        #expect(file.headers["etag"] == "\"v2\"")
        #expect(file.body.isEmpty)
    }

    @Test func statusAlone() throws {
        let file = try parse("HTTP/1.1 204 No Content\n\n")
        #expect(file.statusCode == 204)
        #expect(file.headers.isEmpty)
        #expect(file.body.isEmpty)
    }

    @Test func statusAndBody() throws {
        let file = try parse("HTTP/1.1 200 OK\n\nplain text")
        #expect(file.statusCode == 200)
        #expect(file.body == Data("plain text".utf8))
    }

    // The rules.

    @Test func crlfAndLFBothWork() throws {
        let crlf = try parse("HTTP/1.1 200 OK\r\nX-A: 1\r\n\r\nbody\r\nline2")
        #expect(crlf.headers["X-A"] == "1")
        #expect(crlf.body == Data("body\r\nline2".utf8))
    }

    @Test func splitsAtTheFirstBlankLineSoBlankLinesInTheBodySurvive() throws {
        let file = try parse("HTTP/1.1 200 OK\nContent-Type: text/plain\n\nparagraph one\n\nparagraph two\n\n")
        #expect(file.body == Data("paragraph one\n\nparagraph two\n\n".utf8))
        #expect(file.headers.count == 1)
    }

    @Test func trimsHeaderValuesAndKeepsRepeatedHeaders() throws {
        let file = try parse("HTTP/1.1 200 OK\nSet-Cookie:   a=1  \nset-cookie: b=2\nX-Empty:\n\n")
        #expect(file.headers.values(for: "Set-Cookie") == ["a=1", "b=2"])
        #expect(file.headers["X-Empty"] == "")
    }

    @Test func bodiesAreByteExactEvenBinary() throws {
        var data = Data("HTTP/1.1 200 OK\nContent-Type: image/png\n\n".utf8)
        let binary = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF, 0x0A, 0x0A, 0xC3])
        data.append(binary)
        #expect(try HTTPResponseFile(parsing: data, file: "x.http").body == binary)
    }

    @Test func readsCurlDashIOutputIncludingInterimResponses() throws {
        let curl =
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/2 200 \r\ndate: Sun, 22 Nov 2026 03:00:00 GMT\r\ncontent-type: application/json\r\n\r\n{\"ok\":true}"
        let file = try parse(curl)
        #expect(file.statusCode == 200)
        #expect(file.headers["Content-Type"] == "application/json")
        #expect(file.body == Data("{\"ok\":true}".utf8))
    }

    @Test(
        "malformed files are typed errors naming the file and the line",
        arguments: [
            ("", 1, "the file is empty"),
            ("Content-Type: text/plain\n\nbody", 1, "is not a status line"),
            ("HTTP/1.1\n\n", 1, "has no status code"),
            ("HTTP/1.1 abc OK\n\n", 1, "the status code \"abc\" is not three digits in 100...599"),
            ("HTTP/1.1 600 Nope\n\n", 1, "the status code \"600\" is not three digits in 100...599"),
            ("HTTP/1.1 99 Low\n\n", 1, "the status code \"99\""),
            ("HTTP/1.1 +200 OK\n\n", 1, "the status code \"+200\" is not three digits"),
            ("HTTP/1.1 0200 OK\n\n", 1, "the status code \"0200\" is not three digits"),
            ("HTTP/1.1  200 OK\n\n", 1, "has no status code after one space"),
            ("HTTP/ 200 OK\n\n", 1, "\"HTTP/\" is not an HTTP version"),
            ("HTTP/9 200 OK\n\n", 1, "\"HTTP/9\" is not an HTTP version: expected HTTP/1.0, HTTP/1.1, HTTP/2 or HTTP/3"),
            ("HTTP/1.1 200 OK\nContent-Type: text/plain\nno colon here\n\n", 3, "\"no colon here\" is not a header line"),
            ("HTTP/1.1 200 OK\n{\"id\": 1}\n", 2, "if the body starts here, put one blank line before it"),
            ("HTTP/1.1 200 OK\n: value\n\n", 2, "has no \"Name:\""),
            ("HTTP/1.1 200 OK\nX Name: value\n\n", 2, "the header name \"X Name\" is not a token"),
            ("HTTP/1.1 200 OK\nX-Name : value\n\n", 2, "the header name \"X-Name \" is not a token"),
            ("HTTP/1.1 200 OK\nX-Long: a\n  continued\n\n", 3, "folded header lines (obs-fold) are not allowed"),
            ("HTTP/1.1 200 OK\nContent-Type: text/plain", 3, "no blank line after the headers"),
            ("HTTP/1.1 200 OK", 2, "no blank line after the headers"),
        ])
    func malformedFiles(text: String, line: Int, reason: String) {
        #expect {
            try parse(text, file: "Fixtures/GET|-x.http")
        } throws: { error in
            guard case .malformed(let file, let actualLine, let actualReason) = error as? FixtureError else { return false }
            return file == "Fixtures/GET|-x.http" && actualLine == line && actualReason.contains(reason)
        }
    }

    @Test func theErrorMessageReadsAsFileColonLine() {
        let error = #expect(throws: FixtureError.self) { try parse("HTTP/1.1 2OO OK\n\n", file: "a.http") }
        #expect(error?.description == "a.http:1: the status code \"2OO\" is not three digits in 100...599.")
    }

    @Test func aMissingFileIsUnreadable() {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("nope-\(UUID()).http")
        #expect(throws: FixtureError.self) { try HTTPResponseFile(contentsOf: missing) }
    }

    @Test func anEventStreamFixtureIsServedOneEventPerChunk() async throws {
        let file = try parse("HTTP/1.1 200 OK\nContent-Type: text/event-stream\n\nid: 1\ndata: a\n\n: ping\r\n\r\ndata: b\rdata: c\r\rtail")
        let response = file.mockResponse
        let chunks = response.streamParts.compactMap { part -> String? in
            if case .data(let data) = part { return String(decoding: data, as: UTF8.self) }
            return nil
        }
        #expect(chunks == ["id: 1\ndata: a\n\n", ": ping\r\n\r\n", "data: b\rdata: c\r\r", "tail"])

        let stubs = StubRegistry()
        stubs.stub(.get, "/feed").respond(response)
        let (stream, _) = try await MockURLSession(stubs: stubs).chunks(for: URLRequest(url: testURL("https://h/feed")))
        var events: [ServerSentEvent] = []
        for try await event in stream.serverSentEvents() { events.append(event) }
        #expect(events == [ServerSentEvent(data: "a", lastEventID: "1"), ServerSentEvent(data: "b\nc", lastEventID: "1")])
    }

    @Test func otherFixturesAreServedWhole() throws {
        #expect(try parse("HTTP/1.1 200 OK\nContent-Type: text/plain\n\na\n\nb").mockResponse.streamParts.isEmpty)
    }
}
