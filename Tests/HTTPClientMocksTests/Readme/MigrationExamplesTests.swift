// The "after" examples of the ComingFromOtherTools article, exactly as written there
// (ReadmeIsCompiledTests checks it line for line). The "before" examples show other libraries'
// APIs and are not compiled: the check skips blocks that start with `// Before:`.

import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// The repository's bundled fixture folder (VOKMockData names).
private let fixtures = ReadmeIsCompiledTests.root.appendingPathComponent("Examples/Fixtures")

/// The repository's Mocktail folder (OHHTTPStubs' `.tail` files).
private let mocktails = ReadmeIsCompiledTests.root.appendingPathComponent("Examples/Mocktails")

/// A cassette holding one recorded exchange, written where a test would keep it.
private var cassetteFile: URL {
    get throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("httpclient-migration-example.json")
        let cassette = Cassette(interactions: [
            Cassette.Interaction(
                request: .init(method: "GET", url: "https://api.example.com/users/1"),
                response: .init(
                    status: 200, headers: [.init(name: "Content-Type", value: "application/json")],
                    body: .text(#"{"id": 1, "name": "Ada"}"#)),
                duration: 0.05)
        ])
        try cassette.write(to: file)
        return file
    }
}

@Suite("Coming from other tools")
struct MigrationExamplesTests {
    @Test func answersTheStubbedRoute() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "https://api.example.com/users/1").respond(.json(raw: #"{"id": 1, "name": "Ada"}"#))
        let client = HTTPClient(session: stubs.makeURLSession())  // a real URLSession, answered by the stubs

        let user = try await client.send(HTTPClient.Request<User>.get("https://api.example.com/users/1")).value

        #expect(user.name == "Ada")
        stubs.verify()
    }

    @Test func servesTheMocktailFolder() async throws {
        let stubs = StubRegistry()
        stubs.serve(try MocktailFiles([mocktails]))  // user.tail, avatar.tail, as OHHTTPStubs reads them
        let client = HTTPClient(session: stubs.makeURLSession())

        let user = try await client.send(HTTPClient.Request<User>.get("https://api.example.com/users/1")).value

        #expect(user.name == "Ada")
    }

    @Test func countsTheRequestsOfAStub() async throws {
        let stubs = StubRegistry()
        let userStub = stubs.stub(.get, "https://api.example.com/users/1").respond(.json(raw: #"{"id": 1, "name": "Ada"}"#))
        let client = HTTPClient(session: stubs.makeURLSession())

        _ = try await client.get("https://api.example.com/users/1")

        stubs.verify(userStub, requested: .exactly(1))
    }

    @Test func servesTheFixtureFolder() async throws {
        let stubs = StubRegistry()
        stubs.serve(try FixtureFolder(directory: fixtures))  // files named GET|-users-1.json, ...
        let client = HTTPClient(session: MockURLSession(stubs: stubs))

        let user = try await client.send(HTTPClient.Request<User>.get("https://api.example.com/users/1")).value

        #expect(user.name == "Ada Lovelace")
    }

    @Test func replaysTheRecordedExchange() async throws {
        // Recorded once (HTTPCLIENT_RECORD_MODE=once), replayed offline from then on.
        let session = try CassetteSession(file: try cassetteFile, mode: .none)
        let client = HTTPClient(session: session)

        let user = try await client.send(HTTPClient.Request<User>.get("https://api.example.com/users/1")).value

        #expect(user.name == "Ada")
    }

    @Test(.cassette("fetchUser", matching: CassetteMatching(ignoringOrigin: true, ignoringQuery: true)))
    func fetchUser() async throws {
        // Replays/fetchUser.har beside this file, as Replay recorded it.
        let client = HTTPClient(session: try CassetteSession.current)

        let user = try await client.send(HTTPClient.Request<User>.get("https://api.example.com/users/42")).value

        #expect(user.id == 42)
    }

    @Test func recordsTheURLAndResumesTheTask() throws {
        let session = MockURLSession()
        session.nextData = Data(#"{"id": 1, "name": "Ada"}"#.utf8)
        let task = MockURLSessionDataTask()
        session.nextDataTask = task
        let recorder = CompletionRecorder<Result<HTTPClient.Response<Data>, HTTPClientError>>()

        HTTPClient(session: session).get(url: try #require(URL(string: "https://api.example.com/users/1")), completion: recorder.record)

        #expect(session.lastURL?.path == "/users/1")
        #expect(task.resumeWasCalled)
        #expect(try #require(recorder.value).get().statusCode == 200)
    }
}
