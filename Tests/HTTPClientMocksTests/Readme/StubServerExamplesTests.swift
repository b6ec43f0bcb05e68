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
