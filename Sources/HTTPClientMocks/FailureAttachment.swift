import Foundation
import HTTPClient
import HTTPClientStubs

/// A file attached to a failed test that owned a registry (through the `.stubs` trait or
/// `XCTestCase.makeStubRegistry()`), so the failure can be read without running the test again:
/// `unmatched-requests.txt`, the reports of the requests no stub matched, and `traffic.har`,
/// every request the registry saw and its answer, redacted, as HAR 1.2.
package struct FailureAttachment: Sendable, Equatable {
    /// The file's name, which says its format.
    package let name: String
    /// The bytes, never more than ``byteLimit``.
    package let contents: Data

    /// The most an attachment holds: 1 MiB. Longer bodies are cut, then the oldest exchanges left
    /// out; a longer report text is cut; each says so.
    package static let byteLimit = 1 << 20

    /// The name of the unmatched reports' file.
    package static let unmatchedRequestsName = "unmatched-requests.txt"
    /// The name of the traffic's file.
    package static let trafficName = "traffic.har"

    /// What a test that owned `registry` attaches when it ends: nothing when it passed; when it
    /// failed, the unmatched reports (when there are any) and the traffic.
    package static func attachments(for registry: StubRegistry, testFailed: Bool) -> [FailureAttachment] {
        guard testFailed else { return [] }
        var attachments: [FailureAttachment] = []
        let reports = registry.unmatchedRequests
        if !reports.isEmpty {
            attachments.append(FailureAttachment(name: unmatchedRequestsName, contents: unmatchedText(reports.map(\.description))))
        }
        attachments.append(FailureAttachment(name: trafficName, contents: registry.trafficHAR(byteLimit: byteLimit)))
        return attachments
    }

    /// The reports one after another (already redacted by the registry), cut to `byteLimit`.
    package static func unmatchedText(_ reports: [String], byteLimit: Int = byteLimit) -> Data {
        let separator = "\n\n" + String(repeating: "-", count: 72) + "\n\n"
        let text = Data(reports.joined(separator: separator).utf8)
        guard text.count > byteLimit else { return text }
        let note = Data(
            "\n\n(cut: the attachment is kept within \(byteLimit) bytes; \(text.count) bytes of \(reports.count) reports in all)\n"
                .utf8)
        var end = max(0, byteLimit - note.count)
        // Back to the start of a character: a byte 0b10xxxxxx continues one.
        while end > 0, text[end] & 0xC0 == 0x80 { end -= 1 }
        return text.prefix(end) + note
    }
}
