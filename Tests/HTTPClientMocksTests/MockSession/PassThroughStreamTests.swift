import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// A stream a mock session lets through is the pass-through session's stream.
@Suite("Streams let through")
struct PassThroughStreamTests {
    @Test func aStreamLetThroughArrivesInThePassThroughSessionsChunks() async throws {
        let network = MockURLSession()
        network.stubs.stub(.get, "/feed").respond(.streamed([.text("a"), .text("b"), .text("c")]))
        let session = MockURLSession(passthroughSession: network)
        session.stubs.passThrough(.host("h"))
        let (stream, response) = try await session.chunks(for: request("GET", "https://h/feed"))
        var chunks: [String] = []
        for try await chunk in stream { chunks.append(String(decoding: chunk, as: UTF8.self)) }
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(chunks == ["a", "b", "c"])
        #expect(network.requests.map(\.path) == ["/feed"])
    }
}
