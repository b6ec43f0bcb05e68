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

    let loading = Task { try await URLSession(configuration: .ephemeral).data(from: server.baseURL.appendingPathComponent("feed")) }
    try await feed.waitUntilHolding()  // the request has arrived and waits
    feed.release()

    let (data, _) = try await loading.value
    #expect(data == Data("[]".utf8))
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
