import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// The columns themselves: the table of differences is one entry per difference, and the
/// server's column sends what the test asked for to the server.
@Suite("The transports the behaviour suites run on")
struct TransportTests {
    @Test func eachDocumentedDifferenceIsOneEntryWithItsReason() {
        let entries = Transport.documentedDifferences.map { "\($0.behaviour) on \($0.transport)" }
        #expect(Set(entries).count == entries.count)
        #expect(Transport.documentedDifferences.allSatisfy { !$0.reason.isEmpty })
        // A behaviour listed is one a transport has otherwise: none is left without an entry.
        let documented = Set(Transport.documentedDifferences.map(\.behaviour))
        #expect(Transport.Behaviour.allCases.filter { !documented.contains($0) } == [])
        // The in-process session is what the others are measured against.
        #expect(Transport.documentedDifferences.allSatisfy { $0.transport != .mockSession })
    }

    @Test func theServersColumnRecordsTheRequestAtTheHostAndPortTheTestNamed() async throws {
        let stubs = StubRegistry()
        let search = stubs.stub(.get, "/search").respond(.text("found"))
        let session = try Transport.stubServer.session(stubs)
        let (data, _) = try await session.data(for: request("GET", "https://api.example.com:8443/search?q=swift"))
        #expect(data == Data("found".utf8))
        // The server speaks plain HTTP: the scheme is the server's, the rest the test's.
        #expect(search.calls.map(\.url.absoluteString) == ["http://api.example.com:8443/search?q=swift"])
    }

    @Test func theServersColumnStopsItsServerOnceTheSessionAndItsStreamsAreGone() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/feed").respond(.streamed([.text("one "), .pause(0.01), .text("two")]))
        var session: ServerSession? = try ServerSession(stubs, configuration: .ephemeral)
        weak let server = session?.server
        let (chunks, _) = try #require(try await session?.chunks(for: request("GET", "https://h/feed")))
        session = nil
        var body = Data()
        for try await chunk in chunks { body.append(chunk) }
        // The stream outlived the session that started it...
        #expect(body == Data("one two".utf8))
        // ...and the server (which stops when it is released) went with the last of them.
        #expect(await eventually { server == nil })
    }
}
