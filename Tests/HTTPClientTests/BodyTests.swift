import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient

@Suite("Form and multipart bodies")
struct BodyTests {
    let session = MockURLSession()

    @Test func formFieldsAreURLEncodedAndParseBack() async throws {
        _ = try await HTTPClient(session: session).send(
            .post(
                url("https://h/login"),
                body: .form([
                    URLQueryItem(name: "user", value: "ada lovelace"),
                    URLQueryItem(name: "note", value: "a&b=c+d%"),
                    URLQueryItem(name: "tag", value: "x"),
                    URLQueryItem(name: "tag", value: "y"),
                ])))
        let sent = try #require(session.requests.last)
        #expect(sent.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(sent.text == "user=ada%20lovelace&note=a%26b%3Dc%2Bd%25&tag=x&tag=y")
        #expect(sent.formItems.map { "\($0.name)=\($0.value ?? "")" } == ["user=ada lovelace", "note=a&b=c+d%", "tag=x", "tag=y"])
    }

    @Test func formFromADictionaryIsSortedForAStableBody() {
        guard case .data(let data, _) = HTTPClient.Body.form(["b": "2", "a": "1"]) else {
            Issue.record("expected data")
            return
        }
        #expect(String(decoding: data, as: UTF8.self) == "a=1&b=2")
    }

    /// A small RFC 7578 reader: splits at the boundary lines and reads each part's headers.
    func parse(_ body: Data, boundary: String) throws -> [(headers: [String], data: Data)] {
        let delimiter = Data("--\(boundary)".utf8)
        let crlf = Data("\r\n".utf8)
        #expect(body.suffix(delimiter.count + 4) == delimiter + Data("--".utf8) + crlf)
        var parts: [(headers: [String], data: Data)] = []
        var rest = body[...]
        while let start = rest.range(of: delimiter) {
            rest = rest[start.upperBound...]
            if rest.starts(with: Data("--".utf8)) { break }
            #expect(rest.starts(with: crlf))
            rest = rest.dropFirst(2)
            let headerEnd = try #require(rest.range(of: crlf + crlf))
            let headers = String(decoding: rest[..<headerEnd.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            rest = rest[headerEnd.upperBound...]
            let next = try #require(rest.range(of: crlf + delimiter))
            parts.append((headers, Data(rest[..<next.lowerBound])))
            rest = rest[next.lowerBound...]
        }
        return parts
    }

    @Test func multipartHasFieldsAndFilesWithCorrectBoundariesAndCRLFs() async throws {
        var form = MultipartForm(boundary: "XyZ")
        form.addField(name: "title", value: "Holiday\r\nin \"Rome\"")
        let jpeg = Data([0xFF, 0xD8, 0x0D, 0x0A, 0x2D, 0x2D, 0x00, 0xFF, 0xD9])
        form.addFile(name: "photo", fileName: "beach.jpg", contentType: "image/jpeg", data: jpeg)

        _ = try await HTTPClient(session: session).send(.post(url("https://h/photos"), body: .multipart(form)))

        let sent = try #require(session.requests.last?.urlRequest)
        #expect(sent.value(forHTTPHeaderField: "Content-Type") == "multipart/form-data; boundary=XyZ")
        let parts = try parse(try #require(sent.httpBody), boundary: "XyZ")
        #expect(parts.count == 2)
        #expect(parts[0].headers == [#"Content-Disposition: form-data; name="title""#])
        #expect(parts[0].data == Data("Holiday\r\nin \"Rome\"".utf8))
        #expect(parts[1].headers == [#"Content-Disposition: form-data; name="photo"; filename="beach.jpg""#, "Content-Type: image/jpeg"])
        #expect(parts[1].data == jpeg)
    }

    @Test func quotesAndLineBreaksInNamesCannotBreakTheHeader() throws {
        var form = MultipartForm(boundary: "b")
        form.addFile(name: "f\"x", fileName: "a\r\nContent-Type: evil", data: Data())
        let text = String(decoding: form.encoded(), as: UTF8.self)
        #expect(
            text == "--b\r\nContent-Disposition: form-data; name=\"f%22x\"; filename=\"a%0D%0AContent-Type: evil\"\r\n"
                + "Content-Type: application/octet-stream\r\n\r\n\r\n--b--\r\n")
    }

    @Test func defaultBoundariesAreUnique() {
        #expect(MultipartForm().contentType != MultipartForm().contentType)
    }
}

@Suite("Event hook")
struct EventTests {
    @Test func everyAttemptIsReportedWithCredentialsRedacted() async throws {
        let session = MockURLSession()
        session.enqueue(.status(503, headers: ["Set-Cookie": "id=1"]), .text("ok"))
        let events = Locked<[HTTPClientEvent]>([])
        let client = HTTPClient(
            session: session, headers: ["Authorization": "Bearer s3cret", "Cookie": "a=b", "X-App": "demo"],
            retryPolicy: RetryPolicy(jitter: 0), scheduler: ImmediateScheduler(),
            onEvent: { event in events.withLock { $0.append(event) } })

        _ = try await client.get(url("https://h/x"))

        let log = events.current
        #expect(log.map(\.attempt) == [1, 2])
        #expect(log.map(\.statusCode) == [503, 200])
        #expect(log.map(\.method) == [.get, .get])
        #expect(log[0].error?.response?.statusCode == 503)
        #expect(log[1].error == nil)
        #expect(log.allSatisfy { $0.duration >= 0 && $0.url == url("https://h/x") })
        #expect(log[0].requestHeaders["Authorization"] == "REDACTED")
        #expect(log[0].requestHeaders["Cookie"] == "a=REDACTED")
        #expect(log[0].requestHeaders["X-App"] == "demo")
        #expect(log[0].responseHeaders["Set-Cookie"] == "id=REDACTED")
        #expect(!log.map(\.description).joined().contains("s3cret"))
    }

    @Test func theSynchronousPathReportsToo() {
        let session = MockURLSession()
        let events = Locked<[HTTPClientEvent]>([])
        let client = HTTPClient(session: session, onEvent: { event in events.withLock { $0.append(event) } })
        client.get(url: url("https://h/x")) { _ in }
        #expect(events.current.count == 1)
        #expect(events.current.first?.description.hasPrefix("GET https://h/x -> 200 in ") == true)
    }
}
