import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// Streams recorded through `chunks(for:)` keep their chunks; replays give them back.
@Suite("Cassettes of streamed responses")
struct CassetteStreamTests {
    let folder: TemporaryFolder
    let file: URL
    let upstream = MockURLSession(stubs: StubRegistry("the real API", reporting: .disabled))
    let feed = URLRequest(url: testURL("https://api.example.com/feed"))

    init() throws {
        folder = try TemporaryFolder()
        file = folder.url.appendingPathComponent("feed.json")
        upstream.stubs.stub(.get, "/feed").respond(
            .serverSentEvents([ServerSentEvent(data: "one", lastEventID: "1"), ServerSentEvent(data: "two", lastEventID: "2")]))
    }

    private func collect(_ session: CassetteSession) async throws -> [String] {
        let (chunks, _) = try await session.chunks(for: feed)
        var received: [String] = []
        for try await chunk in chunks { received.append(String(decoding: chunk, as: UTF8.self)) }
        return received
    }

    @Test func aRecordedStreamIsReplayedInItsChunks() async throws {
        let recorded = try await collect(try CassetteSession(file: file, mode: .all, upstream: upstream, reporting: .disabled))
        #expect(recorded == ["id: 1\ndata: one\n\n", "id: 2\ndata: two\n\n"])

        let replay = try CassetteSession(file: file, mode: .none, reporting: .disabled)
        #expect(replay.cassette.interactions.first?.response.chunks?.map(\.bytes) == [17, 17])
        #expect(try await collect(replay) == recorded)
        let (whole, _) = try await replay.data(for: feed)
        #expect(String(decoding: whole, as: UTF8.self) == recorded.joined())
        #expect(upstream.requests.count == 1)
    }

    @Test func replayingWithTimingWaitsOutTheRecordedPauses() async throws {
        var cassette = Cassette()
        cassette.interactions.append(
            Cassette.Interaction(
                request: Cassette.Request(method: "GET", url: "https://api.example.com/feed"),
                response: Cassette.Response(
                    status: 200, body: Cassette.Body(Data("abc".utf8)),
                    chunks: [Cassette.Chunk(at: 0, bytes: 1), Cassette.Chunk(at: 0.05, bytes: 1), Cassette.Chunk(at: 0.1, bytes: 1)])))
        try cassette.write(to: file)
        let timed = try CassetteSession(file: file, mode: .none, replaysTiming: true, reporting: .disabled)

        let started = ContinuousClock.now
        #expect(try await collect(timed) == ["a", "b", "c"])
        // A lower bound only: the pauses cannot be skipped; the machine may add to them.
        #expect(ContinuousClock.now - started >= .milliseconds(95))
        #expect(try await collect(try CassetteSession(file: file, mode: .none, reporting: .disabled)) == ["a", "b", "c"])
    }

    @Test func aSecretSplitBetweenChunksIsStillRedacted() async throws {
        let api = MockURLSession(stubs: StubRegistry("api", reporting: .disabled))
        api.stubs.stub(.get, "/feed").respond(.streamed([.text("data: sk-live-12345"), .text("67890abcdef\n\n")]))
        let recorder = try CassetteSession(
            file: file, mode: .all, upstream: api, redaction: .standard.secret("sk-live-1234567890abcdef"), reporting: .disabled)
        #expect(try await collect(recorder).joined() == "data: sk-live-1234567890abcdef\n\n")

        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains("sk-live"))
        #expect(!text.contains("67890abcdef"))
        let replayed = try await collect(try CassetteSession(file: file, mode: .none, reporting: .disabled)).joined()
        #expect(!replayed.contains("sk-live"))
        #expect(replayed.hasPrefix("data: "))
    }

    @Test func aStreamLetGoBeforeItsEndIsNotRecorded() async throws {
        let api = MockURLSession(stubs: StubRegistry("api", reporting: .disabled), simulatesLatency: true)
        api.stubs.stub(.get, "/feed").respond(.streamed([.text("first"), .pause(3600), .text("never")]))
        let recorder = try CassetteSession(file: file, mode: .all, upstream: api, reporting: .disabled)
        func firstChunk() async throws -> Data? {
            let (chunks, _) = try await recorder.chunks(for: feed)
            for try await chunk in chunks { return chunk }
            return nil
        }
        #expect(try await firstChunk() == Data("first".utf8))
        #expect(recorder.cassette.interactions.isEmpty)
    }

    @Test(arguments: [
        (#"[{"at": 0, "bytes": -1}]"#, "chunk 1 has -1 bytes"),
        (
            #"[{"at": 0.5, "bytes": 1}, {"at": 0.1, "bytes": 1}]"#,
            "chunk 2 arrives at 0.1 s, not a time at or after the chunk before (0.5 s)"
        ),
        (#"[{"at": -3, "bytes": 1}]"#, "chunk 1 arrives at -3.0 s"),
    ])
    func impossibleChunksAreAnErrorNamingTheInteraction(chunks: String, reason: String) throws {
        let json = """
            {"version": 1, "interactions": [{"request": {"method": "GET", "url": "https://h/x", "headers": []},
            "response": {"status": 200, "headers": [], "body": {"text": "ab"}, "chunks": \(chunks)},
            "duration": 0, "recordedAt": "2026-11-22T00:00:00Z"}]}
            """
        let error = #expect(throws: CassetteError.self) { try Cassette(data: Data(json.utf8), file: "feed.json") }
        #expect(error?.description.contains("interaction 1") == true)
        #expect(error?.description.contains(reason) == true, "\(error?.description ?? "")")
    }
}
