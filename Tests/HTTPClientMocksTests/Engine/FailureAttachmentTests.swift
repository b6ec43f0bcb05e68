import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@testable @_spi(Engine) import HTTPClientStubs

/// What a failed test that owns a registry gets attached: its unmatched reports and its traffic
/// as HAR, redacted and within 1 MiB; a passing test gets nothing.
@Suite("Failure attachments")
struct FailureAttachmentTests {
    /// A registry that keeps its answers, as the `.stubs` trait's does, and whose failures are
    /// collected instead of failing this test.
    static func keepingRegistry() -> StubRegistry {
        let stubs = StubRegistry("traffic", reporting: CollectedFailures().reporting)
        stubs.answers.isKeeping = true
        return stubs
    }

    static let token = "Bearer t0ken-value-9f2"

    /// One answered request that sends a credential and gets it echoed back, then one miss.
    static func registryWithTrafficAndAMiss() -> StubRegistry {
        let stubs = keepingRegistry()
        stubs.stub(.get, "https://api.example.com/me").respond(
            .computed { request in .json(raw: #"{"name": "Ada", "sent": "\#(request.headers["Authorization"] ?? "")"}"#) })
        _ = stubs.resolve(request("GET", "https://api.example.com/me", headers: ["Authorization": token]))
        _ = stubs.resolve(request("GET", "https://api.example.com/missing", headers: ["Authorization": token]))
        return stubs
    }

    static func text(_ attachment: FailureAttachment?) -> String {
        String(decoding: attachment?.contents ?? Data(), as: UTF8.self)
    }

    @Test func aFailedTestGetsItsUnmatchedReportsAndItsTraffic() throws {
        let attachments = FailureAttachment.attachments(for: Self.registryWithTrafficAndAMiss(), testFailed: true)

        #expect(attachments.map(\.name) == ["unmatched-requests.txt", "traffic.har"])
        let reports = Self.text(attachments.first)
        #expect(reports.contains("Unmatched request in \"traffic\""))
        #expect(reports.contains("GET https://api.example.com/missing"))
    }

    @Test func aPassingTestGetsNothing() {
        #expect(FailureAttachment.attachments(for: Self.registryWithTrafficAndAMiss(), testFailed: false).isEmpty)
    }

    @Test func withoutAMissOnlyTheTrafficIsAttached() {
        let stubs = Self.keepingRegistry()
        stubs.stub(.get, "/me").respond(.text("Ada"))
        _ = stubs.resolve(request("GET", "https://api.example.com/me"))

        #expect(FailureAttachment.attachments(for: stubs, testFailed: true).map(\.name) == ["traffic.har"])
    }

    @Test func theTrafficReadsBackAsACassetteWithTheCredentialHidden() throws {
        let attachments = FailureAttachment.attachments(for: Self.registryWithTrafficAndAMiss(), testFailed: true)
        let har = try #require(attachments.last)

        let cassette = try Cassette(harData: har.contents, file: har.name)
        #expect(cassette.interactions.count == 1, "the miss got no response: nothing to replay")
        let answered = try #require(cassette.interactions.first)
        #expect(answered.request.url == "https://api.example.com/me")
        #expect(answered.response.status == 200)
        #expect(answered.response.body?.text?.contains(#""name": "Ada""#) == true)
        for attachment in attachments {
            #expect(!Self.text(attachment).contains("t0ken-value-9f2"), "\(attachment.name) holds the credential")
        }
        #expect(Self.text(har).contains(Redaction.placeholder))
    }

    @Test func theUnmatchedReportsAreCutWithinTheLimit() {
        let report = String(repeating: "ü", count: 20_000)  // 40 KB each
        let text = FailureAttachment.unmatchedText([report, report], byteLimit: 64 * 1024)

        #expect(text.count <= 64 * 1024)
        let readable = String(decoding: text, as: UTF8.self)
        #expect(!readable.contains("\u{FFFD}"), "cut on a whole character")
        #expect(readable.hasSuffix("2 reports in all)\n"))
    }
}
