import Foundation
import HTTPClientMocks
import Testing

@testable import HTTPClient
@testable import HTTPClientStubs

@Suite("StubServer")
struct StubServerTests {
    let failures = CollectedFailures()

    @Test func aStubAnswersAGetFromURLSessionOverARealSocket() async throws {
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "/users/1").respond(.json(raw: #"{"id":1}"#))
        let server = try StubServer(stubs)
        defer { server.stop() }

        let (data, response) = try await URLSession(configuration: .ephemeral).data(from: server.baseURL.appendingPathComponent("users/1"))

        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == #"{"id":1}"#)
        #expect(stubs.requests.map(\.url.path) == ["/users/1"])
        #expect(failures.all.isEmpty)
    }
}
