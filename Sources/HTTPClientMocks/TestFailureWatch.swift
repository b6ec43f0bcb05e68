#if canImport(Testing) && compiler(>=6.1)
import Foundation
import HTTPClient
import HTTPClientStubs
import Testing

/// Runs a part of a Swift Testing test and tells whether the test failed in it: an issue that
/// fails the test was recorded there (by the test, by a registry, anywhere in its tasks), or it
/// threw. The `.stubs` trait attaches its registry's traffic when it did.
///
/// Swift Testing has no way to ask whether the running test failed; its issue handling
/// (`compactMapIssues`, Swift 6.2) sees every issue recorded in a scope, and this one passes
/// each on unchanged. Before Swift 6.2 nothing is watched, and nothing attached.
package final class TestFailureWatch: Sendable {
    private let sawFailure = Locked(false)

    package init() {}

    /// Whether an issue that fails the test was recorded, or an error thrown, in ``watch(_:testCase:performing:)``.
    package var testFailed: Bool { sawFailure.current }

    /// Runs `function` in the scope of `test` (and `testCase`), watching for a failure; rethrows
    /// what it throws.
    package func watch(
        _ test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        #if compiler(>=6.2)
        let observer = IssueHandlingTrait.compactMapIssues { [sawFailure] issue in
            if Self.fails(issue) { sawFailure.withLock { $0 = true } }
            return issue
        }
        do {
            try await observer.provideScope(for: test, testCase: testCase, performing: function)
        } catch {
            // Swift Testing records the error as the test's failure once the scopes are left;
            // a cancelled test is not a failed one.
            if !(error is CancellationError) { sawFailure.withLock { $0 = true } }
            throw error
        }
        #else
        try await function()
        #endif
    }

    #if compiler(>=6.2)
    /// Whether `issue` fails the test: Swift 6.3 tells a known issue (`withKnownIssue`) or a
    /// warning from a failure; with Swift 6.2 each issue counts.
    private static func fails(_ issue: Issue) -> Bool {
        #if compiler(>=6.3)
        issue.isFailure
        #else
        true
        #endif
    }
    #endif
}

extension FailureAttachment {
    /// Attaches what a test that owned `registry` and failed gets (see
    /// ``attachments(for:testFailed:)``) to the running Swift Testing test, at `location`.
    static func record(for registry: StubRegistry, testFailed: Bool, at location: SourceLocation) {
        #if compiler(>=6.2)
        for attachment in attachments(for: registry, testFailed: testFailed) {
            Attachment.record([UInt8](attachment.contents), named: attachment.name, sourceLocation: location)
        }
        #endif
    }
}
#endif
