#if canImport(XCTest)
import Foundation
import HTTPClient
import HTTPClientStubs
import XCTest

extension XCTestCase {
    /// A registry this test owns, named after it: when the test fails, its unmatched reports
    /// (`unmatched-requests.txt`) and its traffic (`traffic.har`, every request and answer,
    /// redacted, as HAR 1.2) are attached to the test, each at most 1 MiB.
    ///
    /// ```swift
    /// func testLoadsTheProfile() async throws {
    ///     let stubs = makeStubRegistry()
    ///     stubs.stub(.get, "https://api.example.com/me").respond(.text("Ada"))
    ///     let client = HTTPClient(session: MockURLSession(stubs: stubs))
    ///     XCTAssertEqual(try await client.get("https://api.example.com/me").text, "Ada")
    /// }
    /// ```
    ///
    /// Attachments are an XCTest feature of Apple platforms: swift-corelibs-xctest (Linux,
    /// Windows) has none, so there the registry is an ordinary one.
    ///
    /// - Parameters:
    ///   - name: A name for reports; the test's name by default.
    ///   - redaction: What reports and the attached traffic hide; `Redaction.standard` by default.
    ///   - attachingTrafficOnFailure: Whether a failed test gets the attachments.
    ///   - fileID: Where this is called (with `filePath`, `line` and `column`): failures the
    ///     registry reports point here. Leave the defaults.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    public func makeStubRegistry(
        _ name: String? = nil, redaction: Redaction = .standard, attachingTrafficOnFailure: Bool = true,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> StubRegistry {
        let registry = StubRegistry(
            name ?? self.name, redaction: redaction, fileID: fileID, filePath: filePath, line: line, column: column)
        #if canImport(Darwin)
        guard attachingTrafficOnFailure else { return registry }
        registry.answers.isKeeping = true
        // Teardown blocks run on the test's own thread while its run is open: the run knows
        // whether the test failed, and attachments still land on it.
        nonisolated(unsafe) let test = self
        addTeardownBlock {
            let attachments = FailureAttachment.attachments(for: registry, testFailed: test.testRun?.hasSucceeded == false)
            for attachment in attachments { test.add(attachment.xcTestAttachment) }
        }
        #endif
        return registry
    }
}

#if canImport(Darwin)
extension FailureAttachment {
    /// The attachment as XCTest keeps it, typed by its name's extension.
    fileprivate var xcTestAttachment: XCTAttachment {
        let type = name.hasSuffix(".har") ? "public.json" : "public.plain-text"
        let attachment = XCTAttachment(data: contents, uniformTypeIdentifier: type)
        attachment.name = name
        attachment.lifetime = .keepAlways
        return attachment
    }
}
#endif
#endif
