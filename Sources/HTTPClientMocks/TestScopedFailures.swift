#if canImport(Testing) && compiler(>=6.1)
import Foundation
import HTTPClient
import HTTPClientStubs
import Testing

/// Where a trait-scoped registry's failures go: into the test, now or when it ends.
final class TestScopedFailures: Sendable {
    private struct State {
        var pending: [(message: String, location: SourceLocation)] = []
        var hasEnded = false
    }

    private let test: Test
    private let state = Locked(State())

    init(test: Test) {
        self.test = test
    }

    var reporting: FailureReporting {
        .forwarding { [self] message, site in record(message, at: site) }
    }

    private func record(_ message: String, at site: CallSite) {
        // A site inside this module is the registry's creation or the closing verify call, and
        // one inside the engine a stub it made (a cassette's recording): the test is the place to show.
        let location =
            site.fileID.hasPrefix("HTTPClientMocks/") || site.fileID.hasPrefix("HTTPClientStubs/")
            ? test.sourceLocation
            : SourceLocation(fileID: site.fileID, filePath: site.filePath, line: site.line, column: site.column)
        let recordNow = state.withLock { state in
            guard Test.current?.id != test.id, !state.hasEnded else { return true }
            state.pending.append((message, location))
            return false
        }
        if recordNow { Issue.record(Comment(rawValue: message), sourceLocation: location) }
    }

    /// Records what arrived on other threads, inside the test; later failures (from work the
    /// test left running) are recorded where they happen.
    func recordPendingAndEnd() {
        let pending = state.withLock { state in
            state.hasEnded = true
            defer { state.pending = [] }
            return state.pending
        }
        for failure in pending {
            Issue.record(Comment(rawValue: failure.message), sourceLocation: failure.location)
        }
    }
}
#endif
