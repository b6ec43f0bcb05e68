import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// A stub's response makes its `HTTPURLResponse` once per URL and hands it to every later
/// request for that URL (making one is most of an in-process round trip on Linux); whatever
/// differs between requests (the URL, a computed answer, a changed `nextData`) still makes a
/// response of its own.
@Suite("Responses made once per URL")
struct MadeResponseTests {
    private func response(_ session: MockURLSession, _ url: String) async throws -> HTTPURLResponse {
        let (_, response) = try await session.data(for: request("GET", url))
        return try #require(response as? HTTPURLResponse)
    }

    @Test func aStubHandsRepeatedRequestsForOneURLTheResponseItMadeFirst() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/users/1").respond(.status(200, headers: ["Content-Type": "application/json"], body: Data("{}".utf8)))
        let session = MockURLSession(stubs: stubs)
        let first = try await response(session, "https://api.example.com/users/1")
        let second = try await response(session, "https://api.example.com/users/1")
        #expect(first === second)
        #expect(second.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test func aStubAnsweringManyURLsGivesEachResponseTheURLOfItsRequest() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/users/{id}").respond(.status(200))
        let session = MockURLSession(stubs: stubs)
        for url in ["https://a.example/users/1", "https://a.example/users/2", "https://a.example/users/1", "https://b.example/users/1"] {
            #expect(try await response(session, url).url?.absoluteString == url)
        }
    }

    @Test func requestsForManyURLsAtOnceEachGetAResponseWithTheirOwnURL() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/items/{id}").respond(.status(200))
        let session = MockURLSession(stubs: stubs)
        let urls = (0..<300).map { "https://h.example/items/\($0 % 7)" }
        let mismatches = try await withThrowingTaskGroup(of: Bool.self) { group in
            for url in urls { group.addTask { try await response(session, url).url?.absoluteString != url } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(mismatches == 0)
        #expect(stubs.requests.count == urls.count)
    }

    @Test func aSequenceOfResponsesAnswersWithEachStatusInTurnThenRepeatsTheLast() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/jobs/1").respond(.status(202), .status(200))
        let session = MockURLSession(stubs: stubs)
        var statuses: [Int] = []
        for _ in 0..<3 { statuses.append(try await response(session, "https://h.example/jobs/1").statusCode) }
        #expect(statuses == [202, 200, 200])
    }

    @Test func aComputedResponseIsMadeForEachRequest() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        let calls = Locked(0)
        stubs.stub(.get, "/count").respond(
            .computed { _ in
                let call = calls.withLock { count in
                    count += 1
                    return count
                }
                return .status(200, headers: ["X-Call": "\(call)"])
            })
        let session = MockURLSession(stubs: stubs)
        let first = try await response(session, "https://h.example/count")
        let second = try await response(session, "https://h.example/count")
        #expect(first.value(forHTTPHeaderField: "X-Call") == "1")
        #expect(second.value(forHTTPHeaderField: "X-Call") == "2")
    }

    @Test func changingNextDataChangesTheNextAnswerAndOnlyThen() async throws {
        let session = MockURLSession()
        session.nextData = Data("one".utf8)
        let (first, firstResponse) = try await session.data(for: request("GET", "https://h.example/a"))
        let (again, againResponse) = try await session.data(for: request("GET", "https://h.example/a"))
        session.nextData = Data("two".utf8)
        let (second, _) = try await session.data(for: request("GET", "https://h.example/a"))
        let (_, otherResponse) = try await session.data(for: request("GET", "https://h.example/b"))
        #expect([first, again, second] == [Data("one".utf8), Data("one".utf8), Data("two".utf8)])
        #expect(firstResponse === againResponse)
        #expect(otherResponse.url?.absoluteString == "https://h.example/b")
    }

    @Test func settingNextResponseReplacesTheMadeAnswer() async throws {
        let session = MockURLSession()
        session.nextData = Data("body".utf8)
        _ = try await session.data(for: request("GET", "https://h.example/a"))
        let url = try #require(URL(string: "https://h.example/a"))
        session.nextResponse = HTTPURLResponse(url: url, statusCode: 404, httpVersion: "HTTP/1.1", headerFields: nil)
        let (data, response) = try await session.data(for: request("GET", "https://h.example/a"))
        #expect((response as? HTTPURLResponse)?.statusCode == 404)
        #expect(data == Data("body".utf8))
    }
}
