import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// Hundreds of requests at once through a real `URLSession` over the URLProtocol transport:
/// every call into the protocol's client must happen where Foundation expects it (on Linux, the
/// session's work queue), or the session's task registry is read while it changes.
@Suite("URLProtocol transport under load")
struct URLProtocolStressTests {
    private static let rounds = 10
    private static let concurrentRequests = 400

    @Test func hundredsOfConcurrentDelayedRequestsAllComplete() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/item/{id}").respond(
            .computed { request in
                MockResponse.text(request.pathParameters["id"] ?? "").delayed(by: 0.01)
            })
        let session = stubs.makeURLSession()
        for _ in 0..<Self.rounds {
            let bodies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for index in 0..<Self.concurrentRequests {
                    group.addTask {
                        let (data, _) = try await session.data(for: URLRequest(url: testURL("https://h/item/\(index)")))
                        return (index, String(decoding: data, as: UTF8.self))
                    }
                }
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
            #expect(bodies.count == Self.concurrentRequests)
            #expect(bodies.allSatisfy { String($0.key) == $0.value })
        }
    }

    @Test func hundredsOfConcurrentStreamsWithPausesAllComplete() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/feed").respond(.streamed([.text("one "), .pause(0.005), .text("two "), .pause(0.005), .text("three")]))
        let session = stubs.makeURLSession()
        for _ in 0..<Self.rounds {
            let bodies = try await withThrowingTaskGroup(of: Data.self) { group in
                for _ in 0..<Self.concurrentRequests / 2 {
                    group.addTask {
                        let (chunks, _) = try await session.chunks(for: URLRequest(url: testURL("https://h/feed")))
                        var body = Data()
                        for try await chunk in chunks { body.append(chunk) }
                        return body
                    }
                    group.addTask {
                        try await session.data(for: URLRequest(url: testURL("https://h/feed"))).0
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(bodies.count == Self.concurrentRequests)
            #expect(bodies.allSatisfy { $0 == Data("one two three".utf8) })
        }
    }

    /// An answer with nothing to wait for races a `cancel()` made right after `resume()`: the
    /// task ends once, answered or cancelled, and never traps in corelibs (which fails a
    /// cancelled task itself, and trapped when the protocol had ended it first).
    @Test func hundredsOfImmediateAnswersHalfCancelledAtOnceEachEndOnce() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/item").respond(.text("ok"))
        let session = stubs.makeURLSession()
        for _ in 0..<Self.rounds {
            let outcomes = await withTaskGroup(of: String.self) { group in
                for index in 0..<Self.concurrentRequests {
                    group.addTask {
                        await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
                            let task = session.dataTask(with: testURL("https://h/item")) { data, _, error in
                                if (error as? URLError)?.code == .cancelled { return continuation.resume(returning: "cancelled") }
                                continuation.resume(
                                    returning: data.map { String(decoding: $0, as: UTF8.self) } ?? "\(String(describing: error))")
                            }
                            task.resume()
                            if index.isMultiple(of: 2) { task.cancel() }
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.count == Self.concurrentRequests)
            #expect(outcomes.allSatisfy { $0 == "ok" || $0 == "cancelled" })
            #expect(outcomes.filter { $0 == "ok" }.count >= Self.concurrentRequests / 2)
        }
    }

    @Test func hundredsOfStreamsHalfOfThemCancelledHalfwayEachEndAsTheyShould() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, "/feed").respond(.streamed([.text("one "), .pause(0.005), .text("two "), .pause(0.005), .text("three")]))
        let session = stubs.makeURLSession()
        for _ in 0..<Self.rounds / 2 {
            let outcomes = await withTaskGroup(of: String.self) { group in
                for index in 0..<Self.concurrentRequests / 2 {
                    group.addTask {
                        let reader = Task {
                            let (chunks, _) = try await session.chunks(for: URLRequest(url: testURL("https://h/feed")))
                            var body = ""
                            for try await chunk in chunks {
                                body += String(decoding: chunk, as: UTF8.self)
                                if index.isMultiple(of: 2) { withUnsafeCurrentTask { $0?.cancel() } }
                            }
                            return body
                        }
                        do {
                            return try await reader.value
                        } catch is CancellationError {
                            return "cancelled"
                        } catch {
                            return "\(error)"
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == "cancelled" }.count == Self.concurrentRequests / 4)
            #expect(outcomes.filter { $0 == "one two three" }.count == Self.concurrentRequests / 4)
        }
    }
}
