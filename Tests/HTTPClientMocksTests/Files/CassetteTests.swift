import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// `upstream` plays the real API; cassettes record from it and replay without it.
@Suite("Cassettes")
struct CassetteTests {
    let folder: TemporaryFolder
    let file: URL
    let upstream = MockURLSession(stubs: StubRegistry("the real API", reporting: .disabled))
    let failures = CollectedFailures()

    init() throws {
        folder = try TemporaryFolder()
        file = folder.url.appendingPathComponent("cassettes/users.json")
        let api = upstream.stubs
        api.stub(.get, "/users/{id}").respond(
            .computed { request in
                .json(raw: #"{"id": \#(request.pathParameters["id"] ?? "0"), "name": "Ada"}"#, headers: ["ETag": "v1"])
            })
        api.stub(.get, "/avatar").respond(.status(200, headers: ["Content-Type": "image/png"], body: Data([0x89, 0x50, 0x00, 0xFF])))
        api.stub(.post, "/users").respond(.status(201))
    }

    func session(
        _ mode: RecordMode, matching: CassetteMatching = CassetteMatching(), redaction: Redaction = .standard
    ) throws -> CassetteSession {
        try CassetteSession(
            file: file, mode: mode, upstream: upstream, matching: matching, redaction: redaction, reporting: failures.reporting)
    }

    func text() throws -> String { try String(contentsOf: file, encoding: .utf8) }

    @Test func onceRecordsWhenThereIsNoCassetteThenReplaysByteForByte() async throws {
        let recorder = HTTPClient(session: try session(.once))
        let live = try await recorder.get(testURL("https://api.example.com/users/1"))
        let liveAvatar = try await recorder.get(testURL("https://api.example.com/avatar"))
        #expect(upstream.requests.count == 2)

        let replayer = HTTPClient(session: try session(.once))
        let replayed = try await replayer.get(testURL("https://api.example.com/users/1"))
        let replayedAvatar = try await replayer.get(testURL("https://api.example.com/avatar"))
        #expect(upstream.requests.count == 2)
        #expect(replayed.body == live.body)
        #expect(replayed.statusCode == live.statusCode)
        #expect(replayed.headers["ETag"] == "v1")
        #expect(replayedAvatar.body == liveAvatar.body)
    }

    @Test func theFileIsVersionedReadableJSONWithBase64OnlyForBinary() async throws {
        let recorder = HTTPClient(session: try session(.all))
        _ = try await recorder.get(testURL("https://api.example.com/users/1"))
        _ = try await recorder.get(testURL("https://api.example.com/avatar"))
        let text = try text()
        #expect(text.contains(#""version" : 1"#))
        #expect(text.contains(#""text" : "{\"id\": 1, \"name\": \"Ada\"}""#))
        #expect(text.contains(#""base64" : "iVAA/w==""#))
        #expect(text.contains(#""method" : "GET""#))
        #expect(text.contains(#""duration" : "#))
    }

    @Test func noneReplaysOnlyAndAMissFailsWithTheReport() async throws {
        _ = try await HTTPClient(session: try session(.all)).get(testURL("https://api.example.com/users/1"))
        let replayer = HTTPClient(session: try session(.none))
        #expect(try await replayer.get(testURL("https://api.example.com/users/1")).statusCode == 200)
        let error = await #expect(throws: HTTPClientError.self) { try await replayer.get(testURL("https://api.example.com/users/2")) }
        #expect(error?.description.contains("Unmatched request in \"cassette users.json\"") == true)
        #expect(failures.all.count == 1)
        #expect(upstream.requests.count == 1)
    }

    @Test func noneWithoutACassetteIsAClearError() {
        #expect {
            try session(.none)
        } throws: { error in
            "\(error)".contains(file.path) && "\(error)".contains("HTTPCLIENT_RECORD_MODE=once")
        }
    }

    @Test func onceWithACassetteDoesNotRecordMisses() async throws {
        _ = try await HTTPClient(session: try session(.once)).get(testURL("https://api.example.com/users/1"))
        let again = HTTPClient(session: try session(.once))
        await #expect(throws: HTTPClientError.self) { try await again.get(testURL("https://api.example.com/users/2")) }
        #expect(upstream.requests.count == 1)
        #expect(try Cassette(contentsOf: file).interactions.count == 1)
    }

    @Test(arguments: [RecordMode.none, .once])
    func aPassThroughIsNotRecordedInAModeThatDoesNotRecord(_ mode: RecordMode) async throws {
        _ = try await HTTPClient(session: try session(.all)).get(testURL("https://api.example.com/users/1"))
        let session = try session(mode)
        session.stubs.passThrough(.path(.prefix("/avatar")))
        #expect(try await HTTPClient(session: session).get(testURL("https://api.example.com/avatar")).statusCode == 200)
        #expect(upstream.requests.count == 2)
        #expect(session.cassette.interactions.count == 1)
        #expect(try Cassette(contentsOf: file).interactions.count == 1)
    }

    @Test func aStreamedPassThroughIsNotRecordedInAModeThatDoesNotRecord() async throws {
        _ = try await HTTPClient(session: try session(.all)).get(testURL("https://api.example.com/users/1"))
        let session = try session(.none)
        session.stubs.passThrough(.path(.prefix("/avatar")))
        let (chunks, _) = try await session.chunks(for: URLRequest(url: testURL("https://api.example.com/avatar")))
        var body = Data()
        for try await chunk in chunks { body.append(chunk) }
        #expect(body == Data([0x89, 0x50, 0x00, 0xFF]))
        #expect(try Cassette(contentsOf: file).interactions.count == 1)
    }

    @Test func newEpisodesReplaysWhatItHasAndAppendsWhatItDoesNot() async throws {
        _ = try await HTTPClient(session: try session(.all)).get(testURL("https://api.example.com/users/1"))
        let session = try session(.newEpisodes)
        let client = HTTPClient(session: session)
        _ = try await client.get(testURL("https://api.example.com/users/1"))
        _ = try await client.get(testURL("https://api.example.com/users/2"))
        _ = try await client.get(testURL("https://api.example.com/users/2"))
        #expect(upstream.requests.map(\.url.path) == ["/users/1", "/users/2"])
        #expect(
            try Cassette(contentsOf: file).interactions.map(\.request.url) == [
                "https://api.example.com/users/1", "https://api.example.com/users/2",
            ])
        #expect(failures.all.isEmpty)
    }

    @Test func allRecordsEverythingAgain() async throws {
        _ = try await HTTPClient(session: try session(.all)).get(testURL("https://api.example.com/users/1"))
        let client = HTTPClient(session: try session(.all))
        _ = try await client.get(testURL("https://api.example.com/users/3"))
        #expect(upstream.requests.count == 2)
        #expect(try Cassette(contentsOf: file).interactions.map(\.request.url) == ["https://api.example.com/users/3"])
    }

    @Test func theModeComesFromTheEnvironmentVariable() throws {
        #expect(try RecordMode.fromEnvironment([:]) == .none)
        #expect(try RecordMode.fromEnvironment([:], default: .once) == .once)
        #expect(try RecordMode.fromEnvironment(["HTTPCLIENT_RECORD_MODE": "all"]) == .all)
        #expect(try RecordMode.fromEnvironment(["HTTPCLIENT_RECORD_MODE": "new_episodes"]) == .newEpisodes)
        #expect(throws: CassetteError.unknownRecordMode("sometimes")) {
            try RecordMode.fromEnvironment(["HTTPCLIENT_RECORD_MODE": "sometimes"])
        }
    }

    @Test func repeatedRequestsReplayInRecordedOrderThenRepeatTheLast() async throws {
        let api = upstream.stubs
        api.stub(.get, "/counter").respond(.text("1"), .text("2"))
        let recorder = HTTPClient(session: try session(.all))
        _ = try await recorder.get(testURL("https://h/counter"))
        _ = try await recorder.get(testURL("https://h/counter"))
        let replayer = HTTPClient(session: try session(.none))
        var seen: [String?] = []
        for _ in 0..<3 { seen.append(try await replayer.get(testURL("https://h/counter")).text) }
        #expect(seen == ["1", "2", "2"])
    }

    @Test func queryOrderDoesNotMatterButBodyAndHeadersCanBeRequired() async throws {
        let api = upstream.stubs
        api.stub(.get, "/search").respond(.text("found"))
        _ = try await HTTPClient(session: try session(.all)).send(
            .get(testURL("https://h/search?b=2&a=1"), headers: ["Accept": "text/plain"]))
        #expect(try await HTTPClient(session: try session(.none)).get(testURL("https://h/search?a=1&b=2")).text == "found")

        let strict = HTTPClient(session: try session(.none, matching: CassetteMatching(headers: ["Accept"])))
        await #expect(throws: HTTPClientError.self) {
            try await strict.send(.get(testURL("https://h/search?a=1&b=2"), headers: ["Accept": "application/json"]))
        }
        #expect(try await strict.send(.get(testURL("https://h/search?a=1&b=2"), headers: ["Accept": "text/plain"])).text == "found")

        _ = try await HTTPClient(session: try session(.all)).post(testURL("https://h/users"), body: Data("one".utf8))
        let byBody = HTTPClient(session: try session(.none, matching: CassetteMatching(body: true)))
        #expect(try await byBody.post(testURL("https://h/users"), body: Data("one".utf8)).statusCode == 201)
        await #expect(throws: HTTPClientError.self) { try await byBody.post(testURL("https://h/users"), body: Data("two".utf8)) }
    }

    @Test func theOriginAndTheQueryCanBeLeftOutOfTheMatch() async throws {
        _ = try await HTTPClient(session: try session(.all)).get(testURL("https://staging.example.com/users/1?t=100"))
        let loose = HTTPClient(session: try session(.none, matching: CassetteMatching(ignoringOrigin: true, ignoringQuery: true)))
        #expect(try await loose.get(testURL("http://api.example.com:8080/users/1?t=200")).text == #"{"id": 1, "name": "Ada"}"#)

        let strict = HTTPClient(session: try session(.none))
        await #expect(throws: HTTPClientError.self) { try await strict.get(testURL("https://api.example.com/users/1?t=100")) }
        await #expect(throws: HTTPClientError.self) { try await strict.get(testURL("https://staging.example.com/users/1?t=200")) }
        await #expect(throws: HTTPClientError.self) { try await loose.get(testURL("https://staging.example.com/users/2?t=100")) }
    }

    // MARK: Redaction

    @Test func aRecordedCassetteContainsNoSecret() async throws {
        let api = upstream.stubs
        api.stub(.post, "/oauth/token").respond(
            .json(
                raw: #"{"access_token": "at-9f8e7d", "token_type": "bearer"}"#,
                headers: ["Set-Cookie": "session=cookie-1a2b"]))
        let client = HTTPClient(
            session: try session(.all, redaction: .standard.secret("tenant-secret-42")),
            headers: ["Authorization": "Bearer bt-123456", "Cookie": "sid=ck-777", "X-Api-Key": "xk-555"])
        _ = try await client.send(
            .init(
                method: .post, url: testURL("https://h/oauth/token?api_key=qk-321&client=tenant-secret-42"),
                body: .form(["password": "pw-hunter2", "client_secret": "cs-0000"])))

        let text = try text()
        for secret in ["at-9f8e7d", "cookie-1a2b", "bt-123456", "ck-777", "xk-555", "qk-321", "tenant-secret-42", "pw-hunter2", "cs-0000"] {
            #expect(!text.contains(secret), "\(secret) leaked into the cassette")
        }
        #expect(text.contains("REDACTED"))
        #expect(text.contains(#"\"token_type\": \"bearer\""#))
    }

    @Test func credentialsTheServerEchoesAreHiddenEverywhere() async throws {
        let api = upstream.stubs
        api.stub(.get, "/debug").respond(
            .computed { request in
                .text("saw \(request.headers["Authorization"] ?? "") and \(request.url.query ?? "") and \(request.headers["Cookie"] ?? "")")
            })
        let client = HTTPClient(
            session: try session(.all), headers: ["Authorization": "Bearer echo-token-31", "Cookie": "a=1; sid=echo-cookie-9"])
        _ = try await client.get(testURL("https://h/debug?token=echo-query-7"))
        let text = try text()
        for secret in ["echo-token-31", "echo-cookie-9", "echo-query-7"] {
            #expect(!text.contains(secret), "\(secret) leaked through the response body")
        }
        #expect(text.contains("saw REDACTED and token=REDACTED and REDACTED"))
    }

    @Test func aRequestWithTheRealKeyStillMatchesItsRedactedRecording() async throws {
        _ = try await HTTPClient(session: try session(.all)).get(testURL("https://h/users/5?api_key=real-key"))
        #expect(try text().contains("api_key=REDACTED"))
        #expect(try await HTTPClient(session: try session(.none)).get(testURL("https://h/users/5?api_key=real-key")).statusCode == 200)
    }

    @Test func writingRefusesACassetteThatStillContainsARegisteredSecret() async throws {
        _ = try await HTTPClient(session: try session(.all)).get(testURL("https://h/users/1"))
        let before = try Data(contentsOf: file)
        // A custom rule that puts the secret back simulates a redaction rule with a bug.
        let leaky = Redaction.standard.secret("s3cr3t-value").custom { text in
            text.replacingOccurrences(of: "https://h/users/2", with: "https://h/users/2?debug=s3cr3t-value")
        }
        let client = HTTPClient(session: try session(.newEpisodes, redaction: leaky))
        let error = await #expect(throws: HTTPClientError.self) { try await client.get(testURL("https://h/users/2")) }
        #expect(
            error?.description.contains(
                "refusing to write the cassette: interaction 2 may still contain a registered secret, in the request URL") == true)
        #expect(error?.description.contains("s3cr3t") == false)
        #expect(try Data(contentsOf: file) == before)
    }

    // MARK: Files

    @Test func writesAreAtomicAndLeaveNoTemporaryFiles() throws {
        let cassette = Cassette(interactions: [
            .init(request: .init(method: "GET", url: "https://h/a"), response: .init(status: 200, body: .text("first")))
        ])
        try cassette.write(to: file)
        var second = cassette
        second.interactions[0].response.body = .text("second")
        try second.write(to: file)
        #expect(try Cassette(contentsOf: file) == second)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
        #expect(leftovers == ["users.json"])

        #expect(throws: CassetteError.self) { try second.write(to: file, refusing: .none.secret("second")) }
        #expect(try Cassette(contentsOf: file) == second)
        #expect(try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path) == ["users.json"])
    }

    @Test(
        "corrupt and unknown cassettes are errors naming the file",
        arguments: [
            (#"{"version": 1, "interactions": [{"request": "#, "not valid JSON"),
            (#"{"interactions": []}"#, "has no \"version\""),
            (#"{"version": 7, "interactions": []}"#, "cassette version 7 is not supported (this library reads version 1)"),
            (#"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "x", "headers": []}}]}"#, "\"response\" is missing"),
            (
                #"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "https://h/x", "headers": []}, "response": {"status": 200, "headers": [], "body": {"base64": "%%%"}}, "duration": 0, "recordedAt": "2026-11-22T00:00:00Z"}]}"#,
                "interaction 1: the body is marked base64 but is not valid base64 (at interactions.[0].response.body.base64)"
            ),
        ])
    func corruptCassettes(text: String, expected: String) throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        #expect {
            try Cassette(contentsOf: file)
        } throws: { error in
            "\(error)".hasPrefix(file.path + ":") && "\(error)".contains(expected)
        }
    }

    // MARK: HAR

    @Test func harArchivesImportAndReplay() async throws {
        let har = folder.url.appendingPathComponent("session.har")
        try Data(
            #"""
            {"log": {"version": "1.2", "creator": {"name": "browser", "version": "1"}, "entries": [
              {"startedDateTime": "2026-11-21T10:00:00.123Z", "time": 42.5,
               "request": {"method": "GET", "url": "https://api.example.com/me?api_key=browser-key", "httpVersion": "HTTP/2",
                           "headers": [{"name": ":authority", "value": "api.example.com"}, {"name": "Accept", "value": "application/json"}]},
               "response": {"status": 200, "statusText": "", "httpVersion": "HTTP/2",
                            "headers": [{"name": "content-type", "value": "application/json"}, {"name": "content-encoding", "value": "br"}],
                            "content": {"size": 11, "mimeType": "application/json", "text": "{\"me\":true}"}}},
              {"startedDateTime": "2026-11-21T10:00:01.000Z", "time": 10,
               "request": {"method": "post", "url": "https://api.example.com/upload", "headers": [],
                           "postData": {"mimeType": "text/plain", "text": "hello"}},
               "response": {"status": 204, "headers": [], "content": {"size": 3, "text": "AQID", "encoding": "base64"}}}
            ]}}
            """#.utf8
        ).write(to: har)

        let cassette = try Cassette(harContentsOf: har)
        #expect(cassette.interactions.count == 2)
        #expect(cassette.interactions[0].request.headers.map(\.name) == ["Accept"])
        #expect(cassette.interactions[0].response.headers.map(\.name) == ["content-type"])
        #expect(cassette.interactions[0].duration == 0.0425)
        #expect(cassette.interactions[1].request.method == "POST")
        #expect(cassette.interactions[1].response.body?.data == Data([1, 2, 3]))

        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.replay(cassette)
        let client = HTTPClient(session: MockURLSession(stubs: stubs))
        #expect(try await client.get(testURL("https://api.example.com/me?api_key=browser-key")).text == #"{"me":true}"#)
        #expect(try await client.post(testURL("https://api.example.com/upload"), body: Data("hello".utf8)).statusCode == 204)
    }

    @Test func aFileThatIsNotHARIsAnErrorNamingIt() throws {
        let notHAR = folder.url.appendingPathComponent("x.har")
        try Data(#"{"entries": []}"#.utf8).write(to: notHAR)
        #expect { try Cassette(harContentsOf: notHAR) } throws: { "\($0)".hasPrefix(notHAR.path + ": not a HAR 1.2 file") }
    }
}
