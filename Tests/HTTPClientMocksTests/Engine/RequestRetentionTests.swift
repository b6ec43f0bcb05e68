import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// A registry behind a long-running server keeps a bounded log; what verification counts stays exact.
@Suite("The request log keeps the latest requests")
struct RequestRetentionTests {
    @Test(arguments: Transport.allCases)
    func theLogAndTheCallsKeepTheLatestAndTheCountsStayExact(_ transport: Transport) async throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.retainedRequests = 10
        let items = stubs.stub(.get, "/items/{id}").respond(.status(204))
        let session = try transport.session(stubs)

        for index in 0..<100 {
            _ = try await session.data(for: URLRequest(url: try #require(URL(string: "https://h/items/\(index)"))))
        }

        // At least the latest 10, and never more than a quarter past the bound (let go in batches).
        #expect((10...26).contains(stubs.requests.count))
        #expect((10...26).contains(items.calls.count))
        #expect(stubs.requests.last?.url.path == "/items/99")
        #expect(items.calls.last?.pathParameters["id"] == "99")
        #expect(stubs.requests.map(\.sequenceNumber) == Array((100 - stubs.requests.count)..<100))
        #expect(stubs.verify(items, requested: .exactly(100)))
    }

    @Test(arguments: Transport.allCases)
    func aStubsTimesLimitCountsTheCallsLetGo(_ transport: Transport) async throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.retainedRequests = 1
        stubs.stub(.get, "/once-a-while").respond(.status(200)).times(50)
        let session = try transport.session(stubs)
        var statuses: [Int] = []
        for _ in 0..<51 {
            let result = try? await session.data(for: URLRequest(url: try #require(URL(string: "https://h/once-a-while"))))
            statuses.append((result?.1 as? HTTPURLResponse)?.statusCode ?? -1)
        }
        #expect(statuses.prefix(50).allSatisfy { $0 == 200 })
        #expect(statuses.last != 200)
    }
}
