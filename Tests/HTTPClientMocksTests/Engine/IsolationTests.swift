import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// 128 cases run in parallel (Swift Testing's default), each with its own registry and every
/// transport: each sees only its own stub, and each miss names its own registry.
@Suite("Registry isolation")
struct IsolationTests {
    @Test("parallel tests never see each other's stubs", arguments: 0..<128)
    func parallelCasesAreIsolated(index: Int) async throws {
        let stubs = StubRegistry("case \(index)", reporting: .disabled)
        stubs.stub(.get, "/whoami").respond(.text("case \(index)"))
        stubs.stub(.get, "/only/\(index)").respond(.text("mine"))
        let other = (index + 1) % 128

        for transport in Transport.allCases {
            let client = HTTPClient(session: try transport.session(stubs))
            #expect(try await client.get(testURL("https://h/whoami")).text == "case \(index)")
            #expect(try await client.get(testURL("https://h/only/\(index)")).text == "mine")
            await #expect(throws: HTTPClientError.self) { try await client.get(testURL("https://h/only/\(other)")) }
        }

        #expect(stubs.requests.count == 3 * Transport.allCases.count)
        #expect(stubs.unmatchedRequests.count == Transport.allCases.count)
        #expect(stubs.unmatchedRequests.allSatisfy { $0.registryName == "case \(index)" })
        #expect(stubs.unmatchedRequests.allSatisfy { $0.description.hasPrefix("Unmatched request in \"case \(index)\"") })
        #expect(stubs.stubs.allSatisfy { $0.callCount == Transport.allCases.count })
    }
}

@Suite("Stub engine under stress")
struct StressTests {
    @Test func mockURLSessionFromManyThreadsCountsEveryRequestOnce() {
        let stubs = StubRegistry(reporting: .disabled)
        let sequence = stubs.stub(.get, "/seq").respond(.status(201), .status(202)).whenExhausted(.stopMatching)
        let items = stubs.stub(.get, "/items/{id}").respond(.status(200))
        let client = HTTPClient(session: MockURLSession(stubs: stubs), validation: .acceptAll)
        let requestCount = 4_000
        let completions = Locked([Int](repeating: 0, count: requestCount))
        let statuses = Locked([Int: Int]())

        DispatchQueue.concurrentPerform(iterations: requestCount) { index in
            let path = index.isMultiple(of: 1_000) ? "/seq" : "/items/\(index)"
            client.get(url: testURL("https://h" + path)) { result in
                completions.withLock { $0[index] += 1 }
                let status = (try? result.get().statusCode) ?? -1
                statuses.withLock { $0[status, default: 0] += 1 }
            }
        }

        #expect(completions.current.allSatisfy { $0 == 1 })
        #expect(items.callCount == requestCount - 4)
        #expect(sequence.callCount == 2)
        #expect(statuses.current == [200: requestCount - 4, 201: 1, 202: 1, -1: 2])
        #expect(stubs.requests.count == requestCount)
        #expect(stubs.unmatchedRequests.count == 2)
        #expect(Set(stubs.requests.map(\.sequenceNumber)).count == requestCount)
    }

    @Test func urlProtocolTransportCompletesEveryConcurrentRequestOnce() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        let items = stubs.stub(.get, "/items/{id}").respond(.computed { request in .text(request.pathParameters["id"] ?? "") })
        let limited = stubs.stub(.post, "/claim").respond(.status(204)).times(10)
        let client = HTTPClient(session: stubs.makeURLSession(), validation: .acceptAll)
        let requestCount = 500

        let results = await withTaskGroup(of: (Int, String?).self) { group in
            for index in 0..<requestCount {
                group.addTask {
                    if index < 40 {
                        let status = try? await client.send(.post(testURL("https://h/claim"), body: nil)).statusCode
                        return (index, status.map(String.init))
                    }
                    return (index, try? await client.get(testURL("https://h/items/\(index)")).text)
                }
            }
            return await group.reduce(into: [Int: String?]()) { $0[$1.0] = $1.1 }
        }

        #expect(results.count == requestCount)
        #expect((40..<requestCount).allSatisfy { results[$0] == .some("\($0)") })
        #expect((0..<40).filter { results[$0] == .some("204") }.count == 10)
        #expect(items.callCount == requestCount - 40)
        #expect(limited.callCount == 10)
        #expect(stubs.unmatchedRequests.count == 30)
        #expect(stubs.requests.count == requestCount)
    }
}
