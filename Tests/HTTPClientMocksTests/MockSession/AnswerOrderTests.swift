import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// The order a session's answer sources are tried in, as "Stubbing and verification" sets it out.
@Suite("The order answers are tried in")
struct AnswerOrderTests {
    /// The body of the answer to `GET url` from `session`, as text.
    func answer(_ session: MockURLSession, _ url: String = "https://h/x") async throws -> String {
        String(decoding: try await session.data(for: request("GET", url)).0, as: UTF8.self)
    }

    @Test func aStubWinsOverQueuedAnswersWhichWinOverNextValues() async throws {
        let session = MockURLSession()
        session.nextData = Data("next".utf8)
        session.enqueue(.text("queued"))
        session.stubs.stub(.get, "/x").respond(.text("stub")).once()
        #expect(try await answer(session) == "stub")
        #expect(try await answer(session) == "queued")
        #expect(try await answer(session) == "next")
    }

    @Test func aPassThroughWinsOverTheDefaultAnswerOfASessionWithoutARegistry() async throws {
        let network = MockURLSession()
        network.stubs.stub(.get, "/x").respond(.text("from the network"))
        let session = MockURLSession(passthroughSession: network)
        session.stubs.passThrough(.host("h"))
        #expect(try await answer(session) == "from the network")
        #expect(try await answer(session, "https://elsewhere/x") == "")
    }

    @Test func nextValuesWinOverAPassThrough() async throws {
        let network = MockURLSession()
        network.stubs.stub(.get, "/x").respond(.text("from the network"))
        let session = MockURLSession(passthroughSession: network)
        session.stubs.passThrough(.host("h"))
        session.nextData = Data("next".utf8)
        #expect(try await answer(session) == "next")
        #expect(network.requests.isEmpty)
    }
}
