import Foundation
import HTTPClient
import Testing

@testable import HTTPClientStubs

/// Cassettes written as HAR 1.2, for browsers' developer tools, Charles and Proxyman.
@Suite("HAR export")
struct HARExportTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    /// What a browser exports: a query, headers in order (an HTTP/2 pseudo-header among them), a
    /// JSON body sent, a binary body received, an unusual and an empty status text.
    static let browserHAR = #"""
        {"log": {"version": "1.2", "creator": {"name": "browser", "version": "1"}, "entries": [
          {"startedDateTime": "2026-11-21T10:00:00.123Z", "time": 42.5,
           "request": {"method": "POST", "url": "https://api.example.com/items?b=2&a=1&a=3", "httpVersion": "HTTP/2",
                       "headers": [{"name": ":authority", "value": "api.example.com"}, {"name": "X-Second", "value": "2"},
                                   {"name": "Content-Type", "value": "application/json"}, {"name": "X-First", "value": "1"}],
                       "postData": {"mimeType": "application/json", "text": "{\"name\":\"pen\"}"}},
           "response": {"status": 201, "statusText": "Made", "httpVersion": "HTTP/2",
                        "headers": [{"name": "content-type", "value": "application/json"}, {"name": "Location", "value": "/items/7"}],
                        "content": {"size": 8, "mimeType": "application/json", "text": "{\"id\":7}"}}},
          {"startedDateTime": "2026-11-21T10:00:01.000Z", "time": 10,
           "request": {"method": "GET", "url": "https://api.example.com/avatar", "headers": []},
           "response": {"status": 200, "statusText": "", "headers": [{"name": "Content-Type", "value": "image/png"}],
                        "content": {"size": 4, "mimeType": "image/png", "text": "iVAA/w==", "encoding": "base64"}}}
        ]}}
        """#

    /// The exported archive as JSON objects, to read its fields.
    func entries(_ data: Data) throws -> [[String: Any]] {
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let log = try #require(root["log"] as? [String: Any])
        #expect(log["version"] as? String == "1.2")
        return try #require(log["entries"] as? [[String: Any]])
    }

    @Test func importExportImportKeepsEveryFieldACassetteHolds() throws {
        let imported = try Cassette(harData: Data(Self.browserHAR.utf8), file: "browser.har")
        let exported = try imported.harData(redaction: .none)
        let again = try Cassette(harData: exported, file: "exported.har")

        #expect(again == imported)
        #expect(again.interactions[0].request.headers.map(\.name) == ["X-Second", "Content-Type", "X-First"])
        #expect(again.interactions[0].response.reasonPhrase == "Made")
        #expect(again.interactions[1].response.reasonPhrase == "")
        #expect(again.interactions[0].duration == 0.0425)
        #expect(again.interactions[1].response.body?.data == Data([0x89, 0x50, 0x00, 0xFF]))
    }

    @Test func theExportedEntriesHaveTheFieldsHARReadersLookFor() throws {
        let imported = try Cassette(harData: Data(Self.browserHAR.utf8), file: "browser.har")
        let entries = try entries(try imported.harData(redaction: .none))
        let post = try #require(entries.first)
        let request = try #require(post["request"] as? [String: Any])
        let response = try #require(post["response"] as? [String: Any])
        let timings = try #require(post["timings"] as? [String: Any])

        #expect(post["startedDateTime"] as? String == "2026-11-21T10:00:00Z")
        #expect(post["time"] as? Double == 42.5)
        #expect(timings["wait"] as? Double == 42.5)
        #expect(timings["receive"] as? Double == 0)
        #expect(request["method"] as? String == "POST")
        #expect(request["url"] as? String == "https://api.example.com/items?b=2&a=1&a=3")
        let query = try #require(request["queryString"] as? [[String: String]])
        #expect(query == [["name": "b", "value": "2"], ["name": "a", "value": "1"], ["name": "a", "value": "3"]])
        let postData = try #require(request["postData"] as? [String: Any])
        #expect(postData["mimeType"] as? String == "application/json")
        #expect(postData["text"] as? String == #"{"name":"pen"}"#)
        #expect(response["status"] as? Int == 201)
        #expect(response["statusText"] as? String == "Made")
        #expect(response["redirectURL"] as? String == "/items/7")
        #expect(request["cookies"] as? [Any] != nil)
        #expect(post["cache"] as? [String: Any] != nil)

        let avatar = try #require(entries.last?["response"] as? [String: Any])
        let content = try #require(avatar["content"] as? [String: Any])
        #expect(content["encoding"] as? String == "base64")
        #expect(content["text"] as? String == "iVAA/w==")
        #expect(content["mimeType"] as? String == "image/png")
        #expect(content["size"] as? Int == 4)
    }

    @Test func aUsualStatusGetsItsUsualText() throws {
        let cassette = Cassette(interactions: [.init(request: .init(method: "GET", url: "https://h/x"), response: .init(status: 404))])
        let response = try #require(try entries(try cassette.harData()).first?["response"] as? [String: Any])
        #expect(response["statusText"] as? String == "Not Found")
    }

    @Test func aStreamedResponseSplitsItsTimeIntoTheWaitAndTheBody() throws {
        var interaction = Cassette.Interaction(
            request: .init(method: "GET", url: "https://h/events"),
            response: .init(status: 200, body: .text("a\nb\n"), chunks: [.init(at: 0.1, bytes: 2), .init(at: 0.25, bytes: 2)]))
        interaction.duration = 1
        let timings = try #require(try entries(try Cassette(interactions: [interaction]).harData()).first?["timings"] as? [String: Any])
        #expect(timings["wait"] as? Double == 750)
        #expect(timings["receive"] as? Double == 250)
    }

    @Test func credentialsAreRedactedInTheExport() throws {
        let cassette = Cassette(interactions: [
            .init(
                request: .init(
                    method: "GET", url: "https://h/me?api_key=k3y-value",
                    headers: [.init(name: "Authorization", value: "Bearer t0ken-value")]),
                response: .init(status: 200, body: .text(#"{"echo": "t0ken-value"}"#)))
        ])
        let text = String(decoding: try cassette.harData(), as: UTF8.self)
        #expect(!text.contains("k3y-value"))
        #expect(!text.contains("t0ken-value"))
        #expect(text.contains(Redaction.placeholder))
    }

    @Test func aSecretThatCannotBeHiddenIsRefused() throws {
        let cassette = Cassette(interactions: [
            .init(
                request: .init(method: "GET", url: "https://h/gz"),
                response: .init(status: 200, body: .init(Data([0x1F, 0x8B, 0x08, 0x00]))))
        ])
        #expect(
            throws: CassetteError.secretWouldBeWritten(
                file: "(HAR export)", interaction: 1,
                place: "response body, which is gzip-compressed and cannot be searched for secrets "
                    + "(record it uncompressed: send Accept-Encoding: identity)")
        ) { try cassette.harData(redaction: .standard.secret("s3cret")) }
    }

    @Test func aCassetteWrittenToAFileNamedHARIsAHARArchiveAndReadsBack() throws {
        let cassette = try Cassette(harData: Data(Self.browserHAR.utf8), file: "browser.har")
        let file = folder.url.appendingPathComponent("session.HAR")

        try cassette.write(to: file)

        #expect(try entries(try Data(contentsOf: file)).count == 2)
        #expect(try Cassette(contentsOf: file) == cassette)
        #expect(try Cassette(harContentsOf: file) == cassette)
    }
}
