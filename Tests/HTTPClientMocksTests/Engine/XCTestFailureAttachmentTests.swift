import Foundation
import HTTPClient
import HTTPClientMocks
import XCTest

@testable @_spi(Engine) import HTTPClientStubs

/// Under XCTest a test owns a registry through `makeStubRegistry()`; when the test fails, the
/// same attachments as under Swift Testing go to it as `XCTAttachment`s (Apple platforms: Linux's
/// XCTest has no attachments).
final class XCTestFailureAttachmentTests: XCTestCase {
    func testTheRegistryIsNamedAfterTheTest() {
        let stubs = makeStubRegistry()
        XCTAssertEqual(stubs.name, name)
        XCTAssertEqual(makeStubRegistry("profile").name, "profile")
    }

    func testAnswersAreKeptWhereAttachmentsExist() {
        #if canImport(Darwin)
        XCTAssertTrue(makeStubRegistry().answers.isKeeping)
        #else
        XCTAssertFalse(makeStubRegistry().answers.isKeeping, "Linux's XCTest has no attachments: nothing to keep them for")
        #endif
        XCTAssertFalse(makeStubRegistry(attachingTrafficOnFailure: false).answers.isKeeping)
    }

    func testAFailedRunGetsTheReportsAndTheRedactedTrafficAndAPassingRunNothing() throws {
        let stubs = StubRegistry("xctest traffic", reporting: .disabled)
        stubs.answers.isKeeping = true
        stubs.stub(.post, "https://api.example.com/login").respond(.json(raw: #"{"ok": true}"#))
        _ = stubs.resolve(
            request("POST", "https://api.example.com/login?api_key=k3y-value-77", headers: ["Authorization": "Bearer t0ken-value-77"]))
        _ = stubs.resolve(request("GET", "https://api.example.com/elsewhere"))

        XCTAssertEqual(FailureAttachment.attachments(for: stubs, testFailed: false), [])
        let attachments = FailureAttachment.attachments(for: stubs, testFailed: true)
        XCTAssertEqual(attachments.map(\.name), ["unmatched-requests.txt", "traffic.har"])
        for attachment in attachments {
            let text = String(decoding: attachment.contents, as: UTF8.self)
            XCTAssertFalse(text.contains("t0ken-value-77"), attachment.name)
            XCTAssertFalse(text.contains("k3y-value-77"), attachment.name)
            XCTAssertLessThanOrEqual(attachment.contents.count, FailureAttachment.byteLimit)
        }
        let cassette = try Cassette(harData: try XCTUnwrap(attachments.last).contents, file: "traffic.har")
        XCTAssertEqual(cassette.interactions.map(\.response.status), [200])
    }
}
