#if compiler(>=6.2)
import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@testable import HTTPClientStubs

/// How the `.stubs` trait knows its test failed, to attach the registry's traffic: it watches
/// the issues recorded in its scope and what the test throws.
@Suite("Test failure watch")
struct TestFailureWatchTests {
    struct DeliberateError: Error {}

    static let deliberate = "deliberate failure, filtered out by this test's own trait"

    /// This test's trait takes the deliberate issue away once the watch (inside, nearer the
    /// issue) has seen it, so the watch sees a real failure and this test still passes.
    @Test(.filterIssues { issue in !issue.comments.contains(Comment(rawValue: TestFailureWatchTests.deliberate)) })
    func anIssueRecordedInTheScopeIsAFailure() async throws {
        let watch = TestFailureWatch()
        try await watch.watch(try #require(Test.current), testCase: nil) {
            Issue.record(Comment(rawValue: Self.deliberate))
        }
        #expect(watch.testFailed)
    }

    @Test func aThrownErrorIsAFailure() async throws {
        let watch = TestFailureWatch()
        await #expect(throws: DeliberateError.self) {
            try await watch.watch(try #require(Test.current), testCase: nil) { throw DeliberateError() }
        }
        #expect(watch.testFailed)
    }

    @Test func aScopeWithoutIssuesIsNotAFailure() async throws {
        let watch = TestFailureWatch()
        try await watch.watch(try #require(Test.current), testCase: nil) { #expect(Bool(true)) }
        #expect(!watch.testFailed)
    }

    #if compiler(>=6.3)
    @Test func aKnownIssueIsNotAFailure() async throws {
        let watch = TestFailureWatch()
        try await watch.watch(try #require(Test.current), testCase: nil) {
            withKnownIssue { Issue.record("expected, and known") }
        }
        #expect(!watch.testFailed)
    }
    #endif

    @Test func theStubsTraitKeepsAnswersOnlyWhenItAttaches() async throws {
        let test = try #require(Test.current)
        try await StubsTrait(attachesTrafficOnFailure: true).provideScope(for: test, testCase: nil) {
            #expect(StubRegistry.current?.answers.isKeeping == true)
        }
        try await StubsTrait(attachesTrafficOnFailure: false).provideScope(for: test, testCase: nil) {
            #expect(StubRegistry.current?.answers.isKeeping == false)
        }
        #expect(StubsTrait.stubs(attachingTrafficOnFailure: false).attachesTrafficOnFailure == false)
        #expect(StubsTrait.stubs.attachesTrafficOnFailure)
    }

    /// The whole path: a `.stubs`-scoped test fails (a miss, taken away by this test's trait once
    /// the trait's watch saw it) and the trait records its attachments, which Swift Testing keeps
    /// with the test (they reach disk with `swift test --attachments-path`).
    @Test(.filterIssues { issue in !issue.comments.contains { $0.rawValue.contains("https://api.example.com/deliberate-miss") } })
    func aFailingStubsScopedTestRecordsItsAttachments() async throws {
        let test = try #require(Test.current)
        try await StubsTrait(requiresAllStubsUsed: false).provideScope(for: test, testCase: nil) {
            let stubs = try #require(StubRegistry.current)
            stubs.stub(.get, "https://api.example.com/me").respond(.text("Ada"))
            let client = HTTPClient(session: MockURLSession(stubs: stubs))
            _ = try await client.get(testURL("https://api.example.com/me"))
            _ = try? await client.get(testURL("https://api.example.com/deliberate-miss"))
            #expect(stubs.answers.entries.count == 2)
        }
    }
}
#endif
