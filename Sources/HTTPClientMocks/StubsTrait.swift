#if canImport(Testing) && compiler(>=6.1)
import Foundation
import HTTPClient
import HTTPClientStubs
import Testing

/// A Swift Testing trait that gives each test its own ``StubRegistry`` and charges every
/// failure to that test:
///
/// ```swift
/// @Test(.stubs) func loadsTheProfile() async throws {
///     let stubs = try #require(StubRegistry.current)
///     stubs.stub(.get, "/me").respond(.json(raw: #"{"name": "Ada"}"#))
///     let model = ProfileModel()  // builds MockURLSession(stubs: .current) deep inside
///     try await model.load()
/// }
/// ```
///
/// The registry is ``StubRegistry/current`` for the test's task and every task it creates.
/// A failure found on the test's own task is recorded at once; one found elsewhere (a miss on
/// URLSession's queue, through the URLProtocol transport) is kept and recorded in the test
/// when it ends, so it never lands on the run as a whole or on another test. When the test
/// ends, the registry is verified: every stub used, unless `requiringAllStubsUsed: false` or
/// the stub says ``Stub/allowingUnused()``. Reports point at the closest stub or at the
/// `verify` call when there is one, otherwise at the test. When the test fails, the unmatched
/// reports and the registry's traffic (HAR, redacted) are attached to it (Swift 6.2 and later),
/// unless `attachingTrafficOnFailure: false`.
public struct StubsTrait: TestTrait, TestScoping {
    /// Whether the test fails when a stub it registered was never requested.
    package var requiresAllStubsUsed: Bool
    /// Whether a failed test gets its unmatched reports and traffic attached.
    package var attachesTrafficOnFailure: Bool

    /// Users write `.stubs` or `.stubs(requiringAllStubsUsed:attachingTrafficOnFailure:)` in `@Test(...)`.
    package init(requiresAllStubsUsed: Bool = true, attachesTrafficOnFailure: Bool = true) {
        self.requiresAllStubsUsed = requiresAllStubsUsed
        self.attachesTrafficOnFailure = attachesTrafficOnFailure
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let failures = TestScopedFailures(test: test)
        let registry = StubRegistry(test.name, reporting: failures.reporting)
        registry.answers.isKeeping = attachesTrafficOnFailure
        let watch = TestFailureWatch()
        defer {
            if attachesTrafficOnFailure {
                FailureAttachment.record(for: registry, testFailed: watch.testFailed, at: test.sourceLocation)
            }
        }
        try await watch.watch(test, testCase: testCase) {
            let outcome: Result<Void, any Error>
            do {
                try await StubRegistry.$current.withValue(registry) { try await function() }
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            if requiresAllStubsUsed { registry.verifyAllStubsUsed() }
            failures.recordPendingAndEnd()
            try outcome.get()
        }
    }
}

extension Trait where Self == StubsTrait {
    /// A registry of the test's own, verified when it ends (every stub must be used).
    public static var stubs: StubsTrait { StubsTrait(requiresAllStubsUsed: true) }

    /// A registry of the test's own, verified when it ends.
    ///
    /// - Parameters:
    ///   - requiringAllStubsUsed: Whether the test fails when a stub it registered was never requested.
    ///   - attachingTrafficOnFailure: Whether a failed test gets the unmatched reports and the
    ///     registry's traffic (HAR, redacted) attached.
    public static func stubs(requiringAllStubsUsed: Bool = true, attachingTrafficOnFailure: Bool = true) -> StubsTrait {
        StubsTrait(requiresAllStubsUsed: requiringAllStubsUsed, attachesTrafficOnFailure: attachingTrafficOnFailure)
    }
}
#endif
