import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// A cassette this library wrote goes through every record mode and comes back, whatever
/// redaction put in it: recorded, replayed, appended to, replayed, recorded again, appended to.
@Suite("Cassette round trips")
struct CassetteRoundTripTests {
    /// A redaction rule, the API that makes it put a placeholder in the cassette, and what must
    /// never be written.
    struct Rule: Sendable, CustomTestStringConvertible {
        let name: String
        var redaction = Redaction.standard
        /// Headers the client sends with every request.
        var headers: HTTPHeaders = [:]
        /// The real values: none may reach the file.
        let secrets: [String]
        /// Text redaction keeps in the file (a cookie's attributes, a URL's path).
        var kept: [String] = []
        /// The real API's answers.
        let serve: @Sendable (StubRegistry) -> Void
        /// Exchange number `n` (1, 2, 3: each a request of its own).
        let send: @Sendable (HTTPClient, Int) async throws -> Void

        var testDescription: String { name }
    }

    static let rules: [Rule] = [
        Rule(
            name: "headers", headers: ["Authorization": "Bearer live-token-1"], secrets: ["live-token-1", "refresh-live-2"],
            serve: { api in api.stub(.get, "/items/{n}").respond(.text("item", headers: ["X-Refresh-Token": "refresh-live-2"])) },
            send: { client, n in _ = try await client.get(testURL("https://api.example.com/items/\(n)")) }),
        Rule(
            name: "cookies", secrets: ["cookie-live-1", "cookie-live-2", "cookie-live-3"],
            kept: [
                "https://api.example.com/v1/login/", "Domain=api.example.com; Path=/v1; Expires=Wed, 21 Oct 2037 07:28:00 GMT; HttpOnly",
            ],
            serve: { api in
                api.stub(.get, "/v1/login/{n}").respond(
                    .computed { request in
                        let n = request.pathParameters["n"] ?? "0"
                        let cookie =
                            "sid=cookie-live-\(n); Domain=api.example.com; Path=/v1; Expires=Wed, 21 Oct 2037 07:28:00 GMT; HttpOnly"
                        return .text("welcome", headers: ["Set-Cookie": cookie])
                    })
            },
            send: { client, n in _ = try await client.get(testURL("https://api.example.com/v1/login/\(n)")) }),
        Rule(
            name: "query items", secrets: ["query-live-4"], kept: ["api_key=REDACTED"],
            serve: { api in api.stub(.get, "/search").respond(.json(raw: #"{"hits": 1}"#)) },
            send: { client, n in _ = try await client.get(testURL("https://api.example.com/search?page=\(n)&api_key=query-live-4")) }),
        Rule(
            name: "JSON body keys", secrets: ["password-live-5", "access-live-6"],
            serve: { api in api.stub(.post, "/sessions/{n}").respond(.json(raw: #"{"access_token": "access-live-6", "ok": true}"#)) },
            send: { client, n in
                _ = try await client.send(
                    .post(
                        testURL("https://api.example.com/sessions/\(n)"),
                        body: .data(Data(#"{"user": "ada", "password": "password-live-5"}"#.utf8), contentType: "application/json")))
            }),
        Rule(
            name: "form fields", secrets: ["client-secret-live-7"], kept: ["client_secret=REDACTED"],
            serve: { api in api.stub(.post, "/token/{n}").respond(.status(204)) },
            send: { client, n in
                _ = try await client.send(
                    .post(
                        testURL("https://api.example.com/token/\(n)"),
                        body: .form(["user": "ada", "client_secret": "client-secret-live-7"])))
            }),
        Rule(
            name: "registered secrets", redaction: .standard.secret("tenant-live-8"), headers: ["X-Tenant": "tenant-live-8"],
            secrets: ["tenant-live-8"],
            serve: { api in api.stub(.get, "/tenants/{n}").respond(.text("hello tenant-live-8")) },
            send: { client, n in _ = try await client.get(testURL("https://api.example.com/tenants/\(n)")) }),
        Rule(
            name: "custom rules",
            redaction: .standard.custom { $0.replacingOccurrences(of: "account-live-9", with: Redaction.placeholder) },
            secrets: ["account-live-9"], kept: ["https://api.example.com/accounts/REDACTED/statements/"],
            serve: { api in api.stub(where: .path(.prefix("/accounts/"))).respond(.text("statement of account-live-9")) },
            send: { client, n in _ = try await client.get(testURL("https://api.example.com/accounts/account-live-9/statements/\(n)")) }),
    ]

    /// Matching on method and URL, and matching on the body and hidden headers too. (Not on
    /// `Cookie`: recorded through a real session, cookies are added below the recorder, by that
    /// session, and replayed they are added by the cassette's.)
    static let matchings: [(name: String, matching: CassetteMatching)] = [
        ("method and URL", CassetteMatching()),
        ("body and hidden headers too", CassetteMatching(body: true, headers: ["Authorization", "X-Tenant"])),
    ]

    @Test(arguments: rules, matchings.map(\.name))
    func everyRecordModeRoundTripsACassetteItWrote(rule: Rule, matchingName: String) async throws {
        let matching = try #require(Self.matchings.first { $0.name == matchingName }).matching
        let folder = try TemporaryFolder()
        let file = folder.url.appendingPathComponent("cassette.json")
        let upstream = MockURLSession(stubs: StubRegistry("the real API", reporting: .disabled))
        rule.serve(upstream.stubs)
        let failures = CollectedFailures()

        /// Sends exchanges `numbers` through a session in `mode`, and checks what reached the network and the file.
        func run(_ mode: RecordMode, _ numbers: ClosedRange<Int>, sentUpstream: Int, interactions: Int) async throws {
            let before = upstream.requests.count
            let session = try CassetteSession(
                file: file, mode: mode, upstream: upstream, matching: matching, redaction: rule.redaction, reporting: failures.reporting)
            let client = HTTPClient(session: session, headers: rule.headers)
            for n in numbers { try await rule.send(client, n) }
            #expect(upstream.requests.count - before == sentUpstream, "\(mode): requests sent to the real API")
            let written = try String(contentsOf: file, encoding: .utf8)
            #expect(try Cassette(contentsOf: file).interactions.count == interactions, "\(mode): interactions in the file")
            for secret in rule.secrets { #expect(!written.contains(secret), "\(mode): \(secret) was written") }
            for text in rule.kept + ["REDACTED"] { #expect(written.contains(text), "\(mode): \(text) is not in the file") }
            #expect(failures.all.isEmpty, "\(mode): \(failures.all)")
        }

        try await run(.once, 1...1, sentUpstream: 1, interactions: 1)
        try await run(.none, 1...1, sentUpstream: 0, interactions: 1)
        try await run(.newEpisodes, 1...2, sentUpstream: 1, interactions: 2)
        try await run(.once, 1...2, sentUpstream: 0, interactions: 2)
        try await run(.all, 1...2, sentUpstream: 2, interactions: 2)
        try await run(.newEpisodes, 1...3, sentUpstream: 1, interactions: 3)
        try await run(.none, 1...3, sentUpstream: 0, interactions: 3)
    }

    @Test func aCompressedBodyWrittenWithNothingToHideDoesNotStopAnAppend() async throws {
        let folder = try TemporaryFolder()
        let file = folder.url.appendingPathComponent("cassette.json")
        let upstream = MockURLSession(stubs: StubRegistry("the real API", reporting: .disabled))
        upstream.stubs.stub(.get, "/gz").respond(
            .status(200, headers: ["Content-Encoding": "gzip"], body: Data([0x1F, 0x8B, 0x08, 0x00, 0x01])))
        upstream.stubs.stub(.get, "/me").respond(.text("me"))
        _ = try await HTTPClient(session: try CassetteSession(file: file, mode: .all, upstream: upstream)).get(testURL("https://h/gz"))
        let session = try CassetteSession(file: file, mode: .newEpisodes, upstream: upstream)
        _ = try await HTTPClient(session: session, headers: ["Authorization": "Bearer live-token-11"]).get(testURL("https://h/me"))
        #expect(try Cassette(contentsOf: file).interactions.count == 2)
    }

    @Test func anAppendedExchangeIsStillSearchedForWhatItHid() async throws {
        let folder = try TemporaryFolder()
        let file = folder.url.appendingPathComponent("cassette.json")
        let upstream = MockURLSession(stubs: StubRegistry("the real API", reporting: .disabled))
        upstream.stubs.stub(.get, "/a").respond(.text("first"))
        // A rule of your own that puts back what the name rules hid: the check still catches it.
        upstream.stubs.stub(.get, "/b").respond(.text("second", headers: ["X-Api-Key": "key-live-10"]))
        _ = try await HTTPClient(session: try CassetteSession(file: file, mode: .all, upstream: upstream)).get(testURL("https://h/a"))
        let before = try Data(contentsOf: file)
        let leaky = Redaction.standard.custom { $0.replacingOccurrences(of: "second", with: "second key-live-10") }
        let session = try CassetteSession(file: file, mode: .newEpisodes, upstream: upstream, redaction: leaky, reporting: .disabled)
        let error = await #expect(throws: HTTPClientError.self) { try await HTTPClient(session: session).get(testURL("https://h/b")) }
        #expect(error?.description.contains("interaction 2 may still contain a registered secret, in the response body") == true)
        #expect(try Data(contentsOf: file) == before)
    }
}
