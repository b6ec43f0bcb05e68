import Foundation

/// Where stub-engine failures (unmatched requests, failed verifications) are reported.
public struct FailureReporting: Sendable {
    let report: @Sendable (_ message: String, _ site: CallSite, _ createdInSwiftTesting: Bool) -> Void

    /// Inside a Swift Testing test, `Issue.record`; inside an XCTest test, `XCTFail`; both at
    /// the given source location. A failure found on another thread (the URLProtocol
    /// transport runs on URLSession's queue) of a registry created in a Swift Testing test is
    /// still recorded with `Issue.record`: it fails the run, and its message names the registry.
    ///
    /// This needs the `HTTPClientMocks` module in the process (test targets depend on it). In a
    /// process without it, such as an app launched by a UI test, failures are written to
    /// standard error; they still reach the caller as errors.
    public static let automatic = FailureReporting { message, site, createdInSwiftTesting in
        if let bridge = TestFrameworkBridgeLookup.loaded {
            bridge.record(message: message, at: site, createdInSwiftTesting: createdInSwiftTesting)
        } else {
            FileHandle.standardError.write(Data("\(site): \(message)\n".utf8))
        }
    }

    /// Nothing is reported; failures still reach the caller as errors and stay readable in
    /// ``StubRegistry/unmatchedRequests``. For apps that serve stubs outside tests.
    public static let disabled = FailureReporting { _, _, _ in }

    /// Your own handler, for example to collect failures in a test of a test helper.
    ///
    /// - Parameter handler: Given each failure's message, and where it belongs as
    ///   `Module/File.swift:12` (the stub, registry or check it concerns).
    public static func custom(_ handler: @escaping @Sendable (_ message: String, _ location: String) -> Void) -> FailureReporting {
        FailureReporting { message, site, _ in handler(message, site.description) }
    }

    /// A handler given the whole call site, for reporters that record a failure at a source
    /// location (the `.stubs` trait of `HTTPClientMocks`).
    package static func forwarding(_ handler: @escaping @Sendable (_ message: String, _ site: CallSite) -> Void) -> FailureReporting {
        FailureReporting { message, site, _ in handler(message, site) }
    }

    /// The running Swift Testing test's name, for naming registries after their test.
    static var currentTestName: String? {
        TestFrameworkBridgeLookup.loaded?.currentSwiftTestingTestName
    }
}
