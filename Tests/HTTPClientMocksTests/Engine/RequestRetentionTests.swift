import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@testable import HTTPClientStubs

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

    /// Uploads of megabytes pile up in neither the log, nor a stub's calls, nor the unmatched
    /// reports past the byte bound (what `httpc serve` sets), and the counts stay exact.
    @Test func requestBodiesAreKeptUpToTheByteBoundWhereverTheRequestsAreKept() {
        let failures = CollectedFailures()
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.retainedRequestBytes = 1 << 20
        let uploads = stubs.stub(.post, "/uploads").respond(.status(201))
        let body = Data(repeating: 0x75, count: 300 * 1024)
        for _ in 0..<10 {
            #expect(stubs.status(for: request("POST", "https://h/uploads", body: body)) == 201)
            _ = stubs.status(for: request("POST", "https://h/elsewhere", body: body))
        }

        // Three bodies of 300 KB fit in a megabyte, with the newest always kept.
        #expect((1...3).contains(stubs.requests.count))
        #expect((1...3).contains(uploads.calls.count))
        #expect((1...3).contains(stubs.unmatchedRequests.count))
        #expect(stubs.requests.last?.sequenceNumber == 19)
        #expect(uploads.callCount == 10)
        #expect(stubs.verify(uploads, requested: .exactly(10)))
        #expect(!stubs.verifyNoUnmatchedRequests())
        #expect(failures.all.last?.hasPrefix("10 requests matched no stub (the reports of the latest ") == true)
    }

    /// A request larger than the byte bound alone is not kept at all, and is counted: kept, an
    /// upload of 60 MB would stay in a server's log until enough requests came after it, and in
    /// the calls of a stub that answers rarely, for good.
    @Test func aRequestLargerThanTheByteBoundIsCountedButNotKept() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.retainedRequestBytes = 1 << 20
        let uploads = stubs.stub(.post, "/uploads").respond(.status(201))
        #expect(stubs.status(for: request("POST", "https://h/uploads", body: Data(count: 100))) == 201)
        #expect(stubs.status(for: request("POST", "https://h/uploads", body: Data(count: 2 << 20))) == 201)
        _ = stubs.status(for: request("POST", "https://h/elsewhere", body: Data(count: 2 << 20)))

        #expect(stubs.requests.isEmpty)
        #expect(uploads.calls.isEmpty)
        #expect(stubs.unmatchedRequests.isEmpty)
        #expect(stubs.verify(uploads, requested: .exactly(2)))
        #expect(stubs.status(for: request("POST", "https://h/uploads", body: Data(count: 100))) == 201)
        #expect(stubs.requests.map(\.sequenceNumber) == [3])
    }

    /// A server's requests count their heads against the byte bound as well as their bodies: a
    /// client sending heads of 60 KB (a long query, hundreds of header lines) piles up no more
    /// of them than the bound holds, in the log, a stub's calls or the unmatched reports.
    @Test func theHeadsAServerReadAreKeptUpToTheByteBoundToo() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.retainedRequestBytes = 1 << 20
        let search = stubs.stub(.get, "/search").respond(.status(204))
        let server = try StubServer.serving(stubs)
        defer { server.stop() }
        let query = String(repeating: "q", count: 60 * 1024)
        let statuses = try await offThePool {
            let connection = try RawConnection(port: server.port, readTimeout: 60)
            return try (0..<40).flatMap { _ in
                connection.send(
                    "GET /search?q=\(query) HTTP/1.1\r\nHost: x\r\n\r\n" + "GET /elsewhere?q=\(query) HTTP/1.1\r\nHost: x\r\n\r\n")
                return [try connection.readResponse().status, try connection.readResponse().status]
            }
        }
        #expect(statuses == Array(repeating: [204, 404], count: 40).flatMap { $0 })

        // 1 MiB holds 17 heads of 60 KB, the newest always kept; without the heads counted, all 80.
        #expect((1...17).contains(stubs.requests.count))
        #expect((1...17).contains(search.calls.count))
        #expect((1...17).contains(stubs.unmatchedRequests.count))
        #expect(stubs.requests.last?.sequenceNumber == 79)
        #expect(search.callCount == 40)
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
