import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// Credentials never reach a cassette file, whatever encoding the client or the server gives
/// them, and a file that could hide one is not written.
@Suite("Cassette redaction")
struct CassetteRedactionTests {
    static let secret = "SEKRIT-value/1+2"
    let folder: TemporaryFolder
    let file: URL
    let upstream = MockURLSession(stubs: StubRegistry("the real API", reporting: .disabled))

    init() throws {
        folder = try TemporaryFolder()
        file = folder.url.appendingPathComponent("cassette.json")
    }

    func record(_ redaction: Redaction = .standard.secret(secret)) throws -> HTTPClient {
        HTTPClient(session: try CassetteSession(file: file, mode: .all, upstream: upstream, redaction: redaction, reporting: .disabled))
    }

    /// Every form of `value` a file could leak, checked without the library's own scanner.
    static func leakedForms(of value: String, in data: Data) -> [String] {
        let text = String(decoding: data, as: UTF8.self)
        let bytes = Array(value.utf8)
        var forms = [
            value, value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value,
            (value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value).lowercased(),
            value.replacingOccurrences(of: "/", with: "\\/"),
        ]
        for offset in 0..<3 {
            let encoded = Array((Data(repeating: 0, count: offset) + Data(bytes)).base64EncodedString().utf8)
            let first = (8 * offset + 5) / 6
            let last = (8 * (offset + bytes.count)) / 6
            forms.append(String(decoding: encoded[first..<last], as: UTF8.self))
        }
        return forms.filter { text.contains($0) }
    }

    @Test func aSecretTheClientPercentEncodesInTheQueryAndPathIsNotWritten() async throws {
        let api = upstream.stubs
        api.stub(where: .path(.prefix("/files"))).respond(.text("ok"))
        var request = HTTPClient.Request<Data>.get(
            testURL("https://h/files/\(Self.secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"))
        request.query = [URLQueryItem(name: "q", value: Self.secret)]
        _ = try await record().send(request)
        let written = try Data(contentsOf: file)
        #expect(Self.leakedForms(of: Self.secret, in: written).isEmpty)
        #expect(String(decoding: written, as: UTF8.self).contains("q=REDACTED"))
    }

    @Test func aSecretTheServerSendsLowercaseEncodedOrJSONEscapedIsNotWritten() async throws {
        let api = upstream.stubs
        api.stub(.get, "/echo").respond(
            .json(raw: #"{"a": "SEKRIT-value%2f1%2b2", "b": "SEKRIT-value\/1+2", "c": "\u0053EKRIT-value/1+2"}"#))
        _ = try await record().get(testURL("https://h/echo"))
        let written = try Data(contentsOf: file)
        #expect(Self.leakedForms(of: Self.secret, in: written).isEmpty)
        #expect(!String(decoding: written, as: UTF8.self).contains("EKRIT"))
    }

    @Test func aBearerTokenEchoedInABinaryBodyIsNotWritten() async throws {
        let token = "bt-echo-778899"
        let api = upstream.stubs
        api.stub(.get, "/blob").respond(
            .computed { request in
                // A binary body (not UTF-8) with the request's token inside, at an unaligned offset.
                let echoed = Data([0xFF, 0xFE, 0x01]) + Data((request.headers["Authorization"] ?? "").utf8) + Data([0x00, 0x9F])
                return .status(200, headers: ["Content-Type": "application/octet-stream"], body: echoed)
            })
        _ = try await HTTPClient(
            session: try CassetteSession(file: file, mode: .all, upstream: upstream, reporting: .disabled),
            headers: ["Authorization": "Bearer \(token)"]
        ).get(testURL("https://h/blob"))
        let written = try Data(contentsOf: file)
        #expect(Self.leakedForms(of: token, in: written).isEmpty)
        let cassette = try Cassette(contentsOf: file)
        #expect(cassette.interactions[0].response.body?.data.starts(with: [0xFF, 0xFE, 0x01]) == true)
    }

    @Test func aURLsUserInfoAndTheBasicCredentialTheServerEchoesAreNotWritten() async throws {
        let credential = Data("alice:pa55-w0rd".utf8).base64EncodedString()
        upstream.stubs.stub(.get, "/echo").respond(.json(raw: #"{"authorization": "Basic \#(credential)", "seen": "\#(credential)"}"#))
        _ = try await record(.standard).get(testURL("http://alice:pa55-w0rd@h/echo"))
        let written = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        #expect(!written.contains("pa55-w0rd"))
        #expect(!written.contains(credential))
        #expect(written.contains("http://alice:REDACTED@h/echo"))
        // The redacted URL still finds its interaction when the same request is replayed.
        let replay = HTTPClient(session: try CassetteSession(file: file, mode: .none, reporting: .disabled))
        #expect(try await replay.get(testURL("http://alice:pa55-w0rd@h/echo")).statusCode == 200)
    }

    @Test(arguments: ["https://ada:pa55-w0rd@h/x?token=pa55-w0rd", "https://ada:pa55-w0rd@h/x/pa55-w0rd"])
    func aURLThatRepeatsItsPasswordReplaysAfterRedaction(recorded: String) async throws {
        upstream.stubs.stub(where: .path(.prefix("/x"))).respond(.text("ok"))
        let url = testURL(recorded)
        _ = try await record(.standard).get(url)
        let written = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        #expect(!written.contains("pa55-w0rd"))
        let replay = HTTPClient(session: try CassetteSession(file: file, mode: .none, reporting: .disabled))
        #expect(try await replay.get(url).text == "ok")
    }

    @Test func aCompressedBodyThatCouldHideASecretIsNotWritten() async throws {
        let api = upstream.stubs
        api.stub(.get, "/gz").respond(.status(200, headers: ["Content-Encoding": "gzip"], body: Data([0x1F, 0x8B, 0x08, 0x00, 0x01])))
        let error = await #expect(throws: HTTPClientError.self) { try await record().get(testURL("https://h/gz")) }
        let description = error?.description ?? ""
        #expect(description.contains("interaction 1"))
        #expect(description.contains("response body, which is gzip-compressed and cannot be searched for secrets"))
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func withNothingToHideACompressedBodyIsWritten() async throws {
        let api = upstream.stubs
        api.stub(.get, "/gz").respond(.status(200, headers: ["Content-Encoding": "gzip"], body: Data([0x1F, 0x8B, 0x08, 0x00, 0x01])))
        _ = try await record(.standard).get(testURL("https://h/gz"))
        #expect(try Cassette(contentsOf: file).interactions.count == 1)
    }

    @Test func reRecordingKeepsTheCassettesPermissions() async throws {
        let api = upstream.stubs
        api.stub(.get, "/a").respond(.text("a"))
        _ = try await record().get(testURL("https://h/a"))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        _ = try await record().get(testURL("https://h/a"))
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func aWriteNamesTheInteractionAndThePlaceOfALeftoverSecret() throws {
        let cassette = Cassette(interactions: [
            .init(request: .init(method: "GET", url: "https://h/a"), response: .init(status: 200)),
            .init(
                request: .init(method: "GET", url: "https://h/b", headers: [.init(name: "X-Echo", value: "k%2Fv")]),
                response: .init(status: 200)),
        ])
        let error = #expect(throws: CassetteError.self) { try cassette.write(to: file, refusing: .none.secret("k/v")) }
        guard case .secretWouldBeWritten(let path, let interaction, let place)? = error else {
            Issue.record("expected secretWouldBeWritten, got \(String(describing: error))")
            return
        }
        #expect(path == file.path)
        #expect(interaction == 2)
        #expect(place == "request header X-Echo")
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }
}

/// A cassette or HAR file can hold only what a real exchange can; anything else is an error
/// naming the file and the interaction, never a silent replay or a silent drop.
@Suite("Cassette validation")
struct CassetteValidationTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    static func file(status: Int = 200, method: String = "GET", url: String = "https://h/x") -> String {
        #"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "https://h/ok", "headers": []}, "#
            + #""response": {"status": 200, "headers": []}, "duration": 0, "recordedAt": "2026-11-22T00:00:00Z"}, "#
            + #"{"request": {"method": "\#(method)", "url": "\#(url)", "headers": []}, "#
            + #""response": {"status": \#(status), "headers": []}, "duration": 0, "recordedAt": "2026-11-22T00:00:00Z"}]}"#
    }

    @Test(
        "impossible interactions are errors naming the file and the interaction",
        arguments: [
            (file(status: 0), "interaction 2: status 0 is not in 100...599"),
            (file(status: -1), "interaction 2: status -1 is not in 100...599"),
            (file(status: 99999), "interaction 2: status 99999 is not in 100...599"),
            (file(method: "GET /x"), #"interaction 2: method "GET /x" is not an HTTP method"#),
            (file(method: ""), #"interaction 2: method "" is not an HTTP method"#),
            (file(url: "x"), #"interaction 2: URL "x" is not an absolute http or https URL"#),
            (file(url: "ftp://h/x"), #"interaction 2: URL "ftp://h/x" is not an absolute http or https URL"#),
            (file(url: "https:///x"), #"interaction 2: URL "https:///x" is not an absolute http or https URL"#),
        ])
    func impossibleInteractions(text: String, expected: String) {
        let error = #expect(throws: CassetteError.self) { try Cassette(contentsOf: write(text)) }
        #expect(error?.description.contains("cassette.json: " + expected) == true, "\(String(describing: error))")
    }

    @Test func aHARWithAnImpossibleEntryIsAnError() throws {
        let har = #"{"log": {"entries": [{"request": {"method": "GET", "url": "not a url"}, "response": {"status": 200}}]}}"#
        let error = #expect(throws: CassetteError.self) { try Cassette(harContentsOf: write(har)) }
        #expect(error?.description.contains(#"interaction 1: URL "not a url" is not an absolute http or https URL"#) == true)
    }

    @Test func replayingAnInteractionThatCannotBeServedFailsTheTest() {
        let failures = CollectedFailures()
        let stubs = StubRegistry("replay", reporting: failures.reporting)
        stubs.replay(
            Cassette(interactions: [
                .init(request: .init(method: "GET", url: "https://h/a"), response: .init(status: 200)),
                .init(request: .init(method: "GET", url: "::"), response: .init(status: 200)),
            ]))
        #expect(
            failures.all == [#"Cannot replay interaction 2 of the cassette in "replay": URL "::" is not an absolute http or https URL."#])
        #expect(stubs.status(for: request("GET", "https://h/a")) == 200)
    }

    func write(_ text: String) throws -> URL {
        let url = folder.url.appendingPathComponent("cassette.json")
        try Data(text.utf8).write(to: url)
        return url
    }
}

extension CassetteValidationTests {
    @Test func aRecordedAtThatIsNotRFC3339IsAnErrorNamingTheInteraction() {
        let text = Self.file().replacingOccurrences(of: "2026-11-22T00:00:00Z\"}]}", with: "2026-11-22T00:00:0.40Z\"}]}")
        let error = #expect(throws: CassetteError.self) { try Cassette(contentsOf: write(text)) }
        #expect(
            error?.description.contains(#"interaction 2: "2026-11-22T00:00:0.40Z" is not an RFC 3339 date"#) == true,
            "\(String(describing: error))")
    }

    @Test func aFractionalRecordedAtLoadsAsWholeSecondsAndSurvivesAWrite() throws {
        let text = Self.file().replacingOccurrences(of: "2026-11-22T00:00:00Z\"}]}", with: "2026-11-22T00:00:07.900+01:00\"}]}")
        let cassette = try Cassette(contentsOf: write(text))
        #expect(cassette.interactions[1].recordedAt == Date(timeIntervalSince1970: 1_795_302_007))
        let url = folder.url.appendingPathComponent("again.json")
        try cassette.write(to: url)
        #expect(try Cassette(contentsOf: url) == cassette)
    }
}
