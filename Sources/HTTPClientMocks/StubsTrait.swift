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
/// `verify` call when there is one, otherwise at the test.
public struct StubsTrait: TestTrait, TestScoping {
    /// Whether the test fails when a stub it registered was never requested.
    package var requiresAllStubsUsed: Bool

    /// Users write `.stubs` or `.stubs(requiringAllStubsUsed:)` in `@Test(...)`.
    package init(requiresAllStubsUsed: Bool = true) {
        self.requiresAllStubsUsed = requiresAllStubsUsed
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let failures = TestScopedFailures(test: test)
        let registry = StubRegistry(test.name, reporting: failures.reporting)
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

extension Trait where Self == StubsTrait {
    /// A registry of the test's own, verified when it ends (every stub must be used).
    public static var stubs: StubsTrait { StubsTrait(requiresAllStubsUsed: true) }

    /// A registry of the test's own, verified when it ends.
    public static func stubs(requiringAllStubsUsed: Bool) -> StubsTrait {
        StubsTrait(requiresAllStubsUsed: requiringAllStubsUsed)
    }
}
#endif
