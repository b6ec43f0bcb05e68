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
        var forms = [value, value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value,
                     (value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value).lowercased(),
                     value.replacingOccurrences(of: "/", with: "\\/")]
        for offset in 0..<3 {
            let encoded = Array((Data(repeating: 0, count: offset) + Data(bytes)).base64EncodedString().utf8)
            let first = (8 * offset + 5) / 6, last = (8 * (offset + bytes.count)) / 6
            forms.append(String(decoding: encoded[first..<last], as: UTF8.self))
        }
        return forms.filter { text.contains($0) }
    }

    @Test func aSecretTheClientPercentEncodesInTheQueryAndPathIsNotWritten() async throws {
        let api = try #require(upstream.stubs)
        api.stub(path: .prefix("/files")).respond(.text("ok"))
        var request = HTTPClient.Request.get(testURL("https://h/files/\(Self.secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"))
        request.query = [URLQueryItem(name: "q", value: Self.secret)]
        _ = try await record().send(request)
        let written = try Data(contentsOf: file)
        #expect(Self.leakedForms(of: Self.secret, in: written).isEmpty)
        #expect(String(decoding: written, as: UTF8.self).contains("q=REDACTED"))
    }

    @Test func aSecretTheServerSendsLowercaseEncodedOrJSONEscapedIsNotWritten() async throws {
        let api = try #require(upstream.stubs)
        api.stub(.get, "/echo").respond(.json(raw: #"{"a": "SEKRIT-value%2f1%2b2", "b": "SEKRIT-value\/1+2", "c": "\u0053EKRIT-value/1+2"}"#))
        _ = try await record().get(testURL("https://h/echo"))
        let written = try Data(contentsOf: file)
        #expect(Self.leakedForms(of: Self.secret, in: written).isEmpty)
        #expect(!String(decoding: written, as: UTF8.self).contains("EKRIT"))
    }

    @Test func aBearerTokenEchoedInABinaryBodyIsNotWritten() async throws {
        let token = "bt-echo-778899"
        let api = try #require(upstream.stubs)
        api.stub(.get, "/blob").respond { request in
            // A binary body (not UTF-8) with the request's token inside, at an unaligned offset.
            let echoed = Data([0xFF, 0xFE, 0x01]) + Data((request.headers["Authorization"] ?? "").utf8) + Data([0x00, 0x9F])
            return .status(200, headers: ["Content-Type": "application/octet-stream"], body: echoed)
        }
        _ = try await HTTPClient(session: try CassetteSession(file: file, mode: .all, upstream: upstream, reporting: .disabled),
                                 headers: ["Authorization": "Bearer \(token)"]).get(testURL("https://h/blob"))
        let written = try Data(contentsOf: file)
        #expect(Self.leakedForms(of: token, in: written).isEmpty)
        let cassette = try Cassette(contentsOf: file)
        #expect(cassette.interactions[0].response.body?.data?.starts(with: [0xFF, 0xFE, 0x01]) == true)
    }

    @Test func aCompressedBodyThatCouldHideASecretIsNotWritten() async throws {
        let api = try #require(upstream.stubs)
        api.stub(.get, "/gz").respond(.status(200, headers: ["Content-Encoding": "gzip"], body: Data([0x1F, 0x8B, 0x08, 0x00, 0x01])))
        let error = await #expect(throws: HTTPClientError.self) { try await record().get(testURL("https://h/gz")) }
        let description = error?.description ?? ""
        #expect(description.contains("interaction 1"))
        #expect(description.contains("response body, which is gzip-compressed and cannot be searched for secrets"))
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func withNothingToHideACompressedBodyIsWritten() async throws {
        let api = try #require(upstream.stubs)
        api.stub(.get, "/gz").respond(.status(200, headers: ["Content-Encoding": "gzip"], body: Data([0x1F, 0x8B, 0x08, 0x00, 0x01])))
        _ = try await record(.standard).get(testURL("https://h/gz"))
        #expect(try Cassette(contentsOf: file).interactions.count == 1)
    }

    @Test func reRecordingKeepsTheCassettesPermissions() async throws {
        let api = try #require(upstream.stubs)
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
            .init(request: .init(method: "GET", url: "https://h/b", headers: [.init(name: "X-Echo", value: "k%2Fv")]),
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
