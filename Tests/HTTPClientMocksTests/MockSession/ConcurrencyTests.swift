import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@Suite("MockURLSession under concurrency")
struct MockConcurrencyTests {
    @Test func manyThreadsRecordEveryRequestAndCompleteEachOnce() throws {
        let session = MockURLSession()
        let client = HTTPClient(session: session)
        let iterations = 2_000
        for _ in 0..<iterations / 2 { session.enqueue(.status(201)) }
        let completions = Locked([Int](repeating: 0, count: iterations))
        let statuses = Locked([Int: Int]())

        DispatchQueue.concurrentPerform(iterations: iterations) { index in
            guard let target = URL(string: "https://example.com/items/\(index)") else { return }
            client.get(url: target) { result in
                completions.withLock { $0[index] += 1 }
                let status = (try? result.get().statusCode) ?? -1
                statuses.withLock { $0[status, default: 0] += 1 }
            }
            // Readers racing the writers must see consistent state, never crash.
            _ = session.lastURL
            _ = session.queuedResponseCount
        }

        #expect(completions.current.allSatisfy { $0 == 1 })
        #expect(session.requests.count == iterations)
        #expect(Set(session.requests.map(\.url.path)).count == iterations)
        #expect(statuses.current == [201: iterations / 2, 200: iterations / 2])
    }

    @Test func concurrentResumeAndCancelOfOneTaskCompleteItOnce() {
        for _ in 0..<200 {
            let session = MockURLSession()
            let count = Locked(0)
            let task = session.makeDataTask(with: URLRequest(url: URL(fileURLWithPath: "/"))) { _, _, _ in
                count.withLock { $0 += 1 }
            }
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                if index.isMultiple(of: 2) { task.resume() } else { task.cancel() }
            }
            #expect(count.current == 1)
        }
    }

    @Test func aRequestsHeadersFirstReadFromManyThreadsAtOnceAreTheSameForEach() {
        // Gathered on first use: the first readers race to gather them.
        let recorded = RecordedRequest(request("GET", "https://h/", headers: ["Accept": "application/json", "X-Trace": "7"]))
        let seen = CompletionRecorder<HTTPHeaders>()
        DispatchQueue.concurrentPerform(iterations: 64) { _ in seen.record(recorded.headers) }
        #expect(seen.allValues.count == 64)
        #expect(seen.allValues.allSatisfy { $0["accept"] == "application/json" && $0["x-trace"] == "7" })
    }
}
