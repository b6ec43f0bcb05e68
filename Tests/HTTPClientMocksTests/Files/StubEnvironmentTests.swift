import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@Suite("Stubbed answers from the environment")
struct StubEnvironmentTests {
    let real = MockURLSession()

    @Test func withoutAVariableTheRealSessionIsUsed() throws {
        let session = try StubEnvironment.session(environment: [:], fallback: real)
        #expect(session as? MockURLSession === real)
    }

    @Test func aFixtureFolderVariableAnswersFromTheFolder() async throws {
        let folder = try TemporaryFolder()
        try folder.write("GET|-ping.json", #"{"pong": true}"#)
        let session = try StubEnvironment.session(environment: ["HTTPCLIENT_FIXTURES": folder.url.path], fallback: real)
        #expect(try await HTTPClient(session: session).get(testURL("https://h/ping")).text == #"{"pong": true}"#)
        #expect(real.requests.isEmpty)
    }

    @Test func aCassetteVariableReplaysTheCassette() async throws {
        let folder = try TemporaryFolder()
        let file = folder.url.appendingPathComponent("c.json")
        try Cassette(interactions: [
            .init(request: .init(method: "GET", url: "https://h/ping"), response: .init(status: 200, body: .text("pong")))
        ])
        .write(to: file)
        let session = try StubEnvironment.session(environment: ["HTTPCLIENT_CASSETTE": file.path], fallback: real)
        #expect(try await HTTPClient(session: session).get(testURL("https://h/ping")).text == "pong")
        #expect(real.requests.isEmpty)
    }

    @Test func unusableVariablesFailClearlyInsteadOfReachingTheNetwork() {
        #expect(throws: FixtureError.notADirectory("/no/such/folder")) {
            try StubEnvironment.session(environment: ["HTTPCLIENT_FIXTURES": "/no/such/folder"], fallback: real)
        }
        #expect(throws: (any Error).self) {
            try StubEnvironment.session(environment: ["HTTPCLIENT_CASSETTE": "/no/such.json"], fallback: real)
        }
    }
}
