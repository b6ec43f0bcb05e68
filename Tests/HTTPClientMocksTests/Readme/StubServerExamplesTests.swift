// The StubServer examples of README and of the ServingStubsOverHTTP article, exactly as written
// there (ReadmeIsCompiledTests checks them line for line).

import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@Test func theAppSendsTheOrderToTheStubServer() async throws {
    let stubs = StubRegistry()
    let order = stubs.stub(.post, "/orders").matching(.body("one pen")).respond(.status(201))
    let server = try StubServer(stubs)  // 127.0.0.1, a free port
    defer { server.stop() }

    // Any HTTP client in any process can be pointed at server.baseURL: here, a real URLSession.
    let client = HTTPClient(session: URLSession(configuration: .ephemeral), baseURL: server.baseURL)
    let response = try await client.send(.post("orders", body: .text("one pen")))

    #expect(response.statusCode == 201)
    #expect(stubs.verify(order, requested: .exactly(1)))
}

@Test func aHeldAnswerWaitsOnTheServerUntilTheTestReleasesIt() async throws {
    let stubs = StubRegistry()
    let feed = HeldResponse()
    stubs.stub(.get, "/feed").respond(.json(raw: "[]").held(by: feed))
    var configuration = StubServer.Configuration()
    configuration.log = { entry in print(entry) }  // GET /feed -> 200 (method GET && path /feed)
    let server = try StubServer(stubs, configuration: configuration)
    defer { server.stop() }

    let client = URLSessionConfiguration.ephemeral
    client.timeoutIntervalForRequest = 600  // a held request is quiet for as long as the test holds it
    let loading = Task { try await URLSession(configuration: client).data(from: server.baseURL.appendingPathComponent("feed")) }
    try await feed.waitUntilHolding(timeout: .seconds(600))  // the request has arrived and waits
    feed.release()

    let (data, _) = try await loading.value
    #expect(data == Data("[]".utf8))
}

@Test func aServerBreaksFramesAndNamesItsAnswersAsTheStubsSay() async throws {
    let stubs = StubRegistry()
    stubs.stub(.get, "/feed").respond(.fault(.connectionReset))
    stubs.stub(.get, "/events").respond(.streamed([.text("data: 1\n\n"), .failure(StubFault.malformedChunk)]))
    stubs.stub(.get, "/short").respond(.status(200, headers: ["Content-Length": "10"], body: Data("abc".utf8)).framedAsGiven())
    stubs.stub(.get, "/odd").respond(.status(299).reason("Mostly Fine"))
    stubs.stub(.get, "/search").respond(.json(raw: "[]").delayed(by: .logNormal(median: 0.08, sigma: 0.4, seed: 7)))
    let server = try StubServer(stubs)
    defer { server.stop() }

    let session = URLSession(configuration: .ephemeral)
    defer { session.invalidateAndCancel() }
    for path in ["feed", "events", "short"] {
        await #expect(throws: URLError.self) { try await session.data(from: server.baseURL.appendingPathComponent(path)) }
    }
    let (_, odd) = try await session.data(from: server.baseURL.appendingPathComponent("odd"))
    #expect((odd as? HTTPURLResponse)?.statusCode == 299)
    let (found, _) = try await session.data(from: server.baseURL.appendingPathComponent("search"))
    #expect(found == Data("[]".utf8))
}

@Test func theServerRecordsWhatItForwardsToTheUpstream() async throws {
    let api = StubRegistry()  // stands in for the real API here
    api.stub(.get, "/users/1").respond(.json(raw: #"{"id":1}"#))
    let realAPI = try StubServer(api)
    defer { realAPI.stop() }
    let recording = FileManager.default.temporaryDirectory.appendingPathComponent("users-\(UUID()).har")
    defer { try? FileManager.default.removeItem(at: recording) }

    var configuration = StubServer.Configuration()
    configuration.upstream = .init(realAPI.baseURL, recordingTo: recording, mode: .once)  // .har: written as HAR 1.2
    configuration.log = { entry in print(entry) }  // GET /users/1 -> 200 (recorded from http://127.0.0.1:… as interaction 1 of …)
    let server = try StubServer(StubRegistry(), configuration: configuration)
    defer { server.stop() }

    let (data, _) = try await URLSession(configuration: .ephemeral).data(from: server.baseURL.appendingPathComponent("users/1"))

    #expect(data == Data(#"{"id":1}"#.utf8))
    #expect(FileManager.default.fileExists(atPath: recording.path))
}
