import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// Each request a stub answered says where its answer came from.
@Suite("Answer sources")
struct AnswerSourceTests {
    @Test(arguments: Transport.allCases)
    func aStubsOwnResponsesAreTheSourceOfItsAnswers(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let users = stubs.stub(.get, "/users").respond(.text("[]"))
        _ = try await transport.session(stubs).data(for: request("GET", "https://h/users"))
        #expect(users.calls.map(\.answerSource) == [.stub])
    }

    @Test(arguments: Transport.allCases)
    func aStubWhoseResponseIsAFileIsStillTheSourceOfItsAnswer(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        let folder = try TemporaryFolder()
        let file = folder.url.appendingPathComponent("users.json")
        try Data("[]".utf8).write(to: file)
        let users = stubs.stub(.get, "/users").respond(.file(file))
        let (body, _) = try await transport.session(stubs).data(for: request("GET", "https://h/users"))
        #expect(body == Data("[]".utf8))
        #expect(users.calls.map(\.answerSource) == [.stub])
    }

    @Test(arguments: Transport.allCases)
    func theRegistrysLogSaysWhereEachAnswerCameFrom(_ transport: Transport) async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/users").respond(.text("[]"))
        _ = try await transport.session(stubs).data(for: request("GET", "https://h/users"))
        #expect(stubs.requests.map(\.answerSource) == [.stub])
    }

    @Test func aQueuedAnswerIsLoggedAsAStubsAnswer() async throws {
        let session = MockURLSession()
        session.enqueue(.text("queued"))
        _ = try await session.data(for: request("GET", "https://h/users"))
        #expect(session.requests.map(\.answerSource) == [.stub])
    }

    @Test func aRequestLetThroughIsLoggedAsAnsweredByTheNetwork() async throws {
        let upstream = MockURLSession()
        upstream.enqueue(.text("from the network"))
        let session = MockURLSession(passthroughSession: upstream)
        session.stubs.passThrough(.host("h"))
        _ = try await session.data(for: request("GET", "https://h/users"))
        #expect(session.requests.map(\.answerSource) == [.passThrough])
    }

    @Test(arguments: Transport.allCases)
    func anUnmatchedRequestIsLoggedWithoutASource(_ transport: Transport) async throws {
        let stubs = StubRegistry(reporting: .disabled)
        _ = try? await transport.session(stubs).data(for: request("GET", "https://h/users"))
        #expect(stubs.requests.map(\.answerSource) == [nil])
    }
}
