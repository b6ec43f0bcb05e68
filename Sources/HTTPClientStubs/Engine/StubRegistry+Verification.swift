import Foundation
import HTTPClient

func times(_ count: Int) -> String { count == 1 ? "1 time" : "\(count) times" }

// MARK: - Verifying

/// Each check reports a failure to the running test at the caller's source location (see
/// ``FailureReporting``) and returns whether it passed.
extension StubRegistry {
    /// Checks how many requests `stub` answered.
    @discardableResult
    public func verify(
        _ stub: Stub, requested expected: CallCount = .atLeast(1),
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> Bool {
        check(
            stub.description, requested: stub.callCount, expected,
            CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Checks how many requests, stubbed or not, satisfy `matcher` (like WebMock's
    /// `assert_requested`).
    @discardableResult
    public func verify(
        requestsMatching matcher: RequestMatcher, count expected: CallCount = .atLeast(1),
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> Bool {
        check(
            matcher.description, requested: requests.filter { matcher.matches($0) }.count, expected,
            CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Checks that each stub was first requested after the one before it.
    @discardableResult
    public func verifyOrder(
        _ stubs: Stub...,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> Bool {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let firsts = stubs.map { $0.calls.first?.sequenceNumber }
        if let missing = zip(stubs, firsts).first(where: { $0.1 == nil }) {
            fail("Expected \(missing.0) to be requested in order, but it was never requested.\n" + requestLog(), site)
            return false
        }
        let numbers = firsts.compactMap { $0 }
        if numbers == numbers.sorted() { return true }
        fail(
            "Expected requests in the order \(stubs.map(\.description).joined(separator: ", then ")), "
                + "but they arrived otherwise.\n" + requestLog(), site)
        return false
    }

    /// Checks that no request went unmatched.
    @discardableResult
    package func verifyNoUnmatchedRequests(
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> Bool {
        let unmatched = unmatchedRequests
        guard !unmatched.isEmpty else { return true }
        let count = unmatchedCount
        let kept = count == unmatched.count ? "" : " (the reports of the latest \(unmatched.count) are kept)"
        fail(
            "\(count) request\(count == 1 ? "" : "s") matched no stub\(kept):\n\n"
                + unmatched.map(\.description).joined(separator: "\n\n"),
            CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        return false
    }

    /// Checks that every stub was used, except those marked ``Stub/allowingUnused()``.
    @discardableResult
    package func verifyAllStubsUsed(
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> Bool {
        let unused = unusedStubs
        guard !unused.isEmpty else { return true }
        fail(
            "\(unused.count) stub\(unused.count == 1 ? " was" : "s were") never requested in \"\(name)\":\n"
                + unused.map { "  - \($0)  (\($0.location))" }.joined(separator: "\n")
                + "\nRemove \(unused.count == 1 ? "it" : "them") or mark with .allowingUnused().",
            CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        return false
    }

    /// Checks that no request is still waiting on a ``HeldResponse`` the test never released
    /// (part of ``verify(fileID:filePath:line:column:)``).
    @discardableResult
    package func verifyNoHeldRequests(
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> Bool {
        let held = heldRequests
        guard !held.isEmpty else { return true }
        fail(
            "\(held.count) request\(held.count == 1 ? " is" : "s are") still held, never released or failed:\n"
                + held.map { "  - \($0.request.method) \(redaction.redacted(url: $0.request.url.absoluteString)), held by \($0.hold.name)" }
                .joined(separator: "\n")
                + "\nCall release() or fail(with:) on the HeldResponse before the test ends.",
            CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        return false
    }

    /// Checks that no request went unmatched, that every stub was used (except those marked
    /// ``Stub/allowingUnused()``), and that no request is still waiting on a ``HeldResponse`` the
    /// test never released: call at the end of a test. Each failure is reported on its own.
    @discardableResult
    public func verify(
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> Bool {
        let noMisses = verifyNoUnmatchedRequests(fileID: fileID, filePath: filePath, line: line, column: column)
        let allUsed = verifyAllStubsUsed(fileID: fileID, filePath: filePath, line: line, column: column)
        let noneHeld = verifyNoHeldRequests(fileID: fileID, filePath: filePath, line: line, column: column)
        return noMisses && allUsed && noneHeld
    }

    private func check(_ what: String, requested count: Int, _ expected: CallCount, _ site: CallSite) -> Bool {
        guard !expected.accepts(count) else { return true }
        fail("Expected \(what) to be requested \(expected), but it was requested \(times(count)).\n" + requestLog(), site)
        return false
    }

    private func fail(_ message: String, _ site: CallSite) {
        reporting.report(redaction.redacted(text: message), site, createdInSwiftTesting)
    }

    /// The latest `limit` requests whose sequence numbers are not in `excluded`, each with what
    /// answered it: for a wait on a stub that ran out, the requests that went elsewhere.
    package func requestsElsewhere(excluding excluded: Set<Int>, limit: Int) -> [String] {
        let others = requests.filter { !excluded.contains($0.sequenceNumber) }
        guard !others.isEmpty else { return [] }
        let stubs = self.stubs
        let lines = others.suffix(limit).map { request -> String in
            let answer: String
            switch request.answerSource {
            case nil: answer = "matched no stub"
            case .stub?:
                let stub = stubs.first { $0.calls.contains { $0.sequenceNumber == request.sequenceNumber } }
                answer = "answered by \(stub.map { "\($0)" } ?? "another stub")"
            case let source?: answer = "answered from \(source)"
            }
            return "  \(request.redactedLine(redaction)): \(answer)"
        }
        let count = others.count == 1 ? "1 other request" : "\(others.count) other requests"
        return ["\"\(name)\" saw \(count)\(others.count > limit ? ", the latest \(limit) here" : ""):"] + lines
    }

    private func requestLog() -> String {
        let all = requests
        guard !all.isEmpty else { return "No requests were made to \"\(name)\"." }
        return "Requests made to \"\(name)\":\n"
            + all.enumerated().map { "  \($0.offset + 1). \($0.element.method) \(redaction.redacted(url: $0.element.url.absoluteString))" }
            .joined(separator: "\n")
    }
}
