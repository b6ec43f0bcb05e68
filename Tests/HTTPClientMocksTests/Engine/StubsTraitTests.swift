import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// The `.stubs` trait: a registry per test, reachable as `StubRegistry.current`, whose failures
/// are charged to the test, including those found on URLSession's own queues.
@Suite("Stubs trait")
struct StubsTraitTests {
    @Test(.stubs) func theTestGetsItsOwnRegistryReachableFromTasksItCreates() async throws {
        let stubs = try #require(StubRegistry.current)
        #expect(stubs.name == "theTestGetsItsOwnRegistryReachableFromTasksItCreates()")
        stubs.stub(.get, "/me").respond(.text("Ada"))

        // Code under test that builds its session deep inside, in a task of its own.
        let name = try await Task {
            let client = HTTPClient(session: MockURLSession(stubs: .current))
            return try await client.get(testURL("https://api.example.com/me")).text
        }.value

        #expect(name == "Ada")
        #expect(stubs.requests.map(\.path) == ["/me"])
    }

    @Test func outsideTheTraitThereIsNoCurrentRegistry() {
        #expect(StubRegistry.current == nil)
    }

    @Test func aMissOnURLSessionsQueueIsRecordedInTheTestAtTheClosestStub() async throws {
        let recorded = Locked<[(comment: String, line: Int?)]>([])
        let stubLine = Locked(0)
        let test = try #require(Test.current)
        try await withKnownIssue("the miss is recorded in this test") {
            try await StubsTrait(requiresAllStubsUsed: false).provideScope(for: test, testCase: nil) {
                let stubs = try #require(StubRegistry.current)
                stubLine.withLock { $0 = #line + 1 }
                stubs.stub(.get, "/users/1").respond(.text("Ada"))
                let session = stubs.makeURLSession()
                // The URLProtocol transport resolves on URLSession's queue, outside the test's task.
                _ = try? await session.data(for: URLRequest(url: testURL("https://api.example.com/users/2")))
                #expect(recorded.current.isEmpty, "kept until the test ends, not recorded against the run")
            }
        } matching: { issue in
            recorded.withLock { $0.append((issue.comments.map(\.rawValue).joined(), issue.sourceLocation?.line)) }
            return true
        }
        let issues = recorded.current
        #expect(issues.count == 1)
        #expect(issues.first?.comment.contains("Unmatched request") == true)
        #expect(issues.first?.comment.contains("GET https://api.example.com/users/2") == true)
        #expect(issues.first?.line == stubLine.current)
    }

    @Test func anUnusedStubFailsTheTestAtTheTestsLine() async throws {
        let recorded = Locked<[(comment: String, line: Int?)]>([])
        let test = try #require(Test.current)
        try await withKnownIssue("the unused stub is reported when the test ends") {
            try await StubsTrait(requiresAllStubsUsed: true).provideScope(for: test, testCase: nil) {
                let stubs = try #require(StubRegistry.current)
                stubs.stub(.get, "/never")
                stubs.stub(.get, "/optional").allowingUnused()
            }
        } matching: { issue in
            recorded.withLock { $0.append((issue.comments.map(\.rawValue).joined(), issue.sourceLocation?.line)) }
            return true
        }
        let issues = recorded.current
        #expect(issues.count == 1)
        #expect(issues.first?.comment.contains("1 stub was never requested") == true)
        #expect(issues.first?.comment.contains("/optional") == false)
        #expect(issues.first?.line == test.sourceLocation.line)
    }

    @Test func aMissOnTheTestsOwnTaskIsRecordedAtOnce() async throws {
        let recordedDuringTheTest = Locked<Int?>(nil)
        let count = Locked(0)
        let test = try #require(Test.current)
        try await withKnownIssue("the miss is recorded as it happens") {
            try await StubsTrait(requiresAllStubsUsed: false).provideScope(for: test, testCase: nil) {
                let client = HTTPClient(session: MockURLSession(stubs: .current))
                _ = try? await client.get(testURL("https://api.example.com/nothing"))
                recordedDuringTheTest.withLock { $0 = count.current }
            }
        } matching: { _ in
            count.withLock { $0 += 1 }
            return true
        }
        #expect(recordedDuringTheTest.current == 1)
        #expect(count.current == 1)
    }
}
