import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// A cassette-backed session answers through the same exchange as `MockURLSession` and the
/// URLProtocol: what a session does around an answer happens to replayed and recorded ones too.
@Suite("Cassettes go through the one exchange")
struct CassetteExchangeTests {
    let folder: TemporaryFolder
    let file: URL
    let failures = CollectedFailures()

    init() throws {
        folder = try TemporaryFolder()
        file = folder.url.appendingPathComponent("exchange.json")
    }

    /// A replay-only session over a cassette of `interactions`.
    func replaying(_ interactions: [Cassette.Interaction]) throws -> CassetteSession {
        try Cassette(interactions: interactions).write(to: file)
        return try CassetteSession(file: file, mode: .none, upstream: MockURLSession(), reporting: failures.reporting)
    }

    func interaction(
        _ method: String = "GET", _ url: String, status: Int = 200, headers: [Cassette.Header] = [], body: String? = nil
    ) -> Cassette.Interaction {
        Cassette.Interaction(
            request: Cassette.Request(method: method, url: url),
            response: Cassette.Response(status: status, headers: headers, body: body.map { .text($0) }))
    }

    @Test func aCookieAReplayedResponseSetsIsSentWithTheNextRequest() async throws {
        let session = try replaying([
            interaction(
                "POST", "https://api.example.com/login", headers: [Cassette.Header(name: "Set-Cookie", value: "session=abc; Path=/")]),
            interaction("GET", "https://api.example.com/me", body: "Ada"),
        ])
        _ = try await session.data(for: request("POST", "https://api.example.com/login"))
        _ = try await session.data(for: request("GET", "https://api.example.com/me"))
        #expect(session.stubs.requests.last?.headers["Cookie"] == "session=abc")
    }

    @Test func aReplayedRedirectIsFollowedToTheRecordedTarget() async throws {
        let session = try replaying([
            interaction("GET", "https://api.example.com/old", status: 302, headers: [Cassette.Header(name: "Location", value: "/new")]),
            interaction("GET", "https://api.example.com/new", body: "moved here"),
        ])
        let (body, response) = try await session.data(for: request("GET", "https://api.example.com/old"))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(body == Data("moved here".utf8))
        #expect(session.stubs.requests.map(\.url.path) == ["/old", "/new"])
    }

    @Test func aHeldAnswerOnACassetteSessionWaitsForItsRelease() async throws {
        let session = try replaying([interaction("GET", "https://api.example.com/users", body: "[]")])
        let gate = HeldResponse()
        session.stubs.stub(.get, "https://api.example.com/users").respond(.text("held").held(by: gate))
        async let answer = session.data(for: request("GET", "https://api.example.com/users"))
        try await gate.waitUntilHolding(timeout: eventWait)
        #expect(session.stubs.heldRequests.count == 1)
        gate.release()
        #expect(try await answer.0 == Data("held".utf8))
    }

    @Test func anAnswerLaterThanTheTimeoutOnACassetteSessionTimesOut() async throws {
        let session = try replaying([interaction("GET", "https://api.example.com/users", body: "[]")])
        session.stubs.stub(.get, "https://api.example.com/slow").respond(.status(200).delayed(by: 30))
        var slow = URLRequest(url: testURL("https://api.example.com/slow"))
        slow.timeoutInterval = 1
        let error = await #expect(throws: URLError.self) { try await session.data(for: slow) }
        #expect(error?.code == .timedOut)
    }

    @Test func aCassetteSessionIsVerifiedLikeAnyRegistry() async throws {
        let session = try replaying([interaction("GET", "https://api.example.com/users", body: "[]")])
        _ = try await session.data(for: request("GET", "https://api.example.com/users"))
        _ = try? await session.data(for: request("GET", "https://api.example.com/missing"))
        #expect(session.stubs.verify(requestsMatching: .path("/users"), count: .exactly(1)))
        #expect(!session.stubs.verifyNoUnmatchedRequests())
        #expect(failures.all.count == 2)  // the miss itself, and the verification
    }

    @Test func aStubOfYourOwnOnARecordingSessionAnswersBeforeTheNetworkAndIsNotRecorded() async throws {
        let upstream = MockURLSession(stubs: StubRegistry("the real API", reporting: .disabled))
        upstream.stubs.stub(.get, "/users").respond(.text("[]"))
        let session = try CassetteSession(file: file, mode: .all, upstream: upstream, reporting: failures.reporting)
        session.stubs.stub(.get, "/flaky").respond(.status(503))
        _ = try await session.data(for: request("GET", "https://api.example.com/flaky"))
        _ = try await session.data(for: request("GET", "https://api.example.com/users"))
        #expect(upstream.requests.map(\.url.path) == ["/users"])
        #expect(session.cassette.interactions.map(\.request.url) == ["https://api.example.com/users"])
        #expect(session.stubs.requests.count == 2)
    }

    @Test func aReplayedRequestNamesTheInteractionThatAnsweredIt() async throws {
        let session = try replaying([
            interaction("GET", "https://api.example.com/users", body: "[]"),
            interaction("GET", "https://api.example.com/users", body: "[1]"),
        ])
        _ = try await session.data(for: request("GET", "https://api.example.com/users"))
        _ = try await session.data(for: request("GET", "https://api.example.com/users"))
        let sources: [AnswerSource] = [.recording(interaction: 0, file: file), .recording(interaction: 1, file: file)]
        #expect(session.stubs.stubs.flatMap(\.calls).map(\.answerSource) == sources)
        #expect(session.stubs.requests.map(\.answerSource) == sources)
    }

    @Test func cancellingAHeldRequestOnACassetteSessionDeliversCancelledOnce() async throws {
        let session = try replaying([interaction("GET", "https://api.example.com/users", body: "[]")])
        let gate = HeldResponse()
        session.stubs.stub(.get, "https://api.example.com/users").respond(.text("held").held(by: gate))
        let recorder = CompletionRecorder<URLError.Code?>()
        let task = session.makeDataTask(with: request("GET", "https://api.example.com/users")) { _, _, error in
            recorder.record((error as? URLError)?.code)
        }
        task.resume()
        try await gate.waitUntilHolding(timeout: eventWait)
        task.cancel()
        gate.release()
        #expect(recorder.value == .cancelled)
        #expect(recorder.callCount == 1)
    }

    @Test func hundredsOfRequestsAtOnceAreEachAnsweredFromTheCassette() async throws {
        let session = try replaying([interaction("GET", "https://api.example.com/users", body: "[]")])
        try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<300 { group.addTask { try await session.data(for: request("GET", "https://api.example.com/users")).0 } }
            for try await body in group { #expect(body == Data("[]".utf8)) }
        }
        #expect(session.stubs.requests.count == 300)
        #expect(session.stubs.stubs.first?.callCount == 300)
    }

    @Test func aRecordingSessionThatStopsPassingThroughFailsMissesInsteadOfRecordingThem() async throws {
        let upstream = MockURLSession(stubs: StubRegistry("the real API", reporting: .disabled))
        upstream.stubs.stub(.get, "/users").respond(.text("[]"))
        let session = try CassetteSession(file: file, mode: .all, upstream: upstream, reporting: failures.reporting)
        session.stubs.stopPassingThrough()
        await #expect(throws: UnmatchedRequestError.self) {
            try await session.data(for: request("GET", "https://api.example.com/users"))
        }
        #expect(upstream.requests.isEmpty)
        #expect(session.cassette.interactions.isEmpty)
        #expect(failures.all.count == 1)
    }

    /// A session over a cassette whose one answer took `duration` seconds when it was recorded.
    func slowRecording(duration: TimeInterval, replaysTiming: Bool) throws -> CassetteSession {
        let slow = Cassette.Interaction(
            request: Cassette.Request(method: "GET", url: "https://api.example.com/slow"), response: Cassette.Response(status: 200),
            duration: duration)
        try Cassette(interactions: [slow]).write(to: file)
        return try CassetteSession(
            file: file, mode: .none, upstream: MockURLSession(), replaysTiming: replaysTiming, reporting: failures.reporting)
    }

    @Test func replayedWithItsTimingAnAnswerRecordedSlowerThanTheTimeoutTimesOut() async throws {
        let session = try slowRecording(duration: 30, replaysTiming: true)
        var slow = request("GET", "https://api.example.com/slow")
        slow.timeoutInterval = 0.05
        let error = await #expect(throws: URLError.self) { try await session.data(for: slow) }
        #expect(error?.code == .timedOut)
    }

    @Test func replayedWithoutItsTimingARecordedWaitIsNotWaited() async throws {
        let session = try slowRecording(duration: 30, replaysTiming: false)
        var slow = request("GET", "https://api.example.com/slow")
        slow.timeoutInterval = 0.05
        let (_, response) = try await session.data(for: slow)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
    }

    /// A recorded `Set-Cookie` keeps its name with its value hidden, so replaying the
    /// recording sets the cookie again and the next request carries it.
    @Test func aCookieSetWhileRecordingIsSentAgainOnReplay() async throws {
        let upstream = MockURLSession()
        upstream.stubs.stub(.get, "https://api.example.com/login").respond(.text("hi", headers: ["Set-Cookie": "sid=abc123xyz; Path=/"]))
        upstream.stubs.stub(.get, "https://api.example.com/me").respond(.text("me"))
        let recording = try CassetteSession(file: file, mode: .all, upstream: upstream, reporting: failures.reporting)
        let recorder = HTTPClient(session: recording)
        _ = try await recorder.get(testURL("https://api.example.com/login"))
        _ = try await recorder.get(testURL("https://api.example.com/me"))
        let written = try String(contentsOf: file, encoding: .utf8)
        #expect(!written.contains("abc123xyz"))

        let replay = try CassetteSession(file: file, mode: .none, upstream: MockURLSession(), reporting: failures.reporting)
        let client = HTTPClient(session: replay)
        _ = try await client.get(testURL("https://api.example.com/login"))
        _ = try await client.get(testURL("https://api.example.com/me"))
        #expect(replay.stubs.stubs.flatMap(\.calls).last?.headers["Cookie"] == "sid=REDACTED")
    }
}
