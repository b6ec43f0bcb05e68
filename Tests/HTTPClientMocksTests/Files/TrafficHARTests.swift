import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@testable @_spi(Engine) import HTTPClientStubs

/// A registry's traffic as HAR 1.2 (what a failed test attaches): every request with the answer
/// the registry gave it, redacted, never longer than asked.
@Suite("Traffic HAR")
struct TrafficHARTests {
    static let oneMiB = 1 << 20

    /// A registry that keeps its answers, as a test that attaches its traffic makes it, and whose
    /// failures are collected instead of failing this test.
    static func keepingRegistry(redaction: Redaction = .standard) -> StubRegistry {
        let stubs = StubRegistry("traffic", reporting: CollectedFailures().reporting, redaction: redaction)
        stubs.answers.isKeeping = true
        return stubs
    }

    static func archive(_ data: Data) throws -> (log: [String: Any], entries: [[String: Any]]) {
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let log = try #require(root["log"] as? [String: Any])
        return (log, try #require(log["entries"] as? [[String: Any]]))
    }

    @Test func anErrorAndAPassThroughAreEntriesWithoutAResponse() throws {
        let stubs = Self.keepingRegistry()
        stubs.stub(.get, "/offline").respond(.error(URLError(.notConnectedToInternet)))
        stubs.passThrough(.host("127.0.0.1"))
        _ = stubs.resolve(request("GET", "https://api.example.com/offline"))
        _ = stubs.resolve(request("GET", "http://127.0.0.1:9/health"))

        let entries = try Self.archive(stubs.trafficHAR(byteLimit: Self.oneMiB)).entries
        let comments = entries.map { $0["comment"] as? String ?? "" }
        #expect(entries.map { ($0["response"] as? [String: Any])?["status"] as? Int } == [0, 0])
        #expect(comments[0].contains("the error"))
        #expect(comments[1].contains("Passed through to the network"))
    }

    @Test func aLargeBodyIsCutToKeepTheTrafficWithinTheLimit() throws {
        let stubs = Self.keepingRegistry()
        let body = Data(String(repeating: "é", count: 60_000).utf8)  // 120 KB of two-byte characters
        stubs.stub(.get, "/big").respond(.status(200, headers: ["Content-Type": "text/plain"], body: body))
        _ = stubs.resolve(request("GET", "https://api.example.com/big"))

        let limit = 32 * 1024
        let har = stubs.trafficHAR(byteLimit: limit)
        #expect(har.count <= limit)
        let entry = try #require(try Self.archive(har).entries.first)
        #expect((entry["comment"] as? String)?.contains("cut to its first") == true)
        let content = try #require((entry["response"] as? [String: Any])?["content"] as? [String: Any])
        #expect(content["size"] as? Int == body.count, "the real size, not the cut one")
        #expect(content["encoding"] == nil, "cut on a whole character, the body stays text")
        #expect(try Cassette(harData: har, file: "traffic.har").interactions.count == 1)
    }

    @Test func manyExchangesBeyondTheLimitLeaveTheOldestOut() throws {
        let stubs = Self.keepingRegistry()
        stubs.stub(.get, "/items/{id}").respond(.text("item"))
        for id in 0..<200 { _ = stubs.resolve(request("GET", "https://api.example.com/items/\(id)")) }

        let har = stubs.trafficHAR(byteLimit: 16 * 1024)
        #expect(har.count <= 16 * 1024)
        let (log, entries) = try Self.archive(har)
        #expect((log["comment"] as? String)?.contains("exchanges are left out") == true)
        let urls = entries.compactMap { ($0["request"] as? [String: Any])?["url"] as? String }
        #expect(urls.last == "https://api.example.com/items/199", "the latest exchanges stay")
        #expect(urls.count < 200)
    }

    @Test func aCompressedBodyThatCouldHideASecretIsLeftOutWithANote() throws {
        let stubs = Self.keepingRegistry(redaction: .standard.secret("s3cret"))
        stubs.stub(.get, "/archive").respond(
            .status(200, headers: ["Content-Encoding": "gzip"], body: Data([0x1F, 0x8B, 0x08, 0x00, 0xFF, 0xFE])))
        _ = stubs.resolve(request("GET", "https://api.example.com/archive"))

        let entry = try #require(try Self.archive(stubs.trafficHAR(byteLimit: Self.oneMiB)).entries.first)
        let content = try #require((entry["response"] as? [String: Any])?["content"] as? [String: Any])
        #expect(content["text"] == nil)
        #expect((entry["comment"] as? String)?.contains("Bodies left out") == true)
    }

    @Test func answersAreKeptOnlyWhenTheOwnerAsksAndAsFewAsTheRequests() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/n").respond(.text("n"))
        _ = stubs.resolve(request("GET", "https://h/n"))
        #expect(stubs.answers.entries.isEmpty)

        stubs.answers.isKeeping = true
        stubs.retainedRequests = 10
        for _ in 0..<100 { _ = stubs.resolve(request("GET", "https://h/n")) }
        #expect(stubs.answers.entries.count <= 10 + 16)
        #expect(stubs.answers.entries.last?.sequenceNumber == 100)
    }

    @Test func withoutKeptAnswersTheTrafficShowsTheRequestsAndSaysSo() throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/n").respond(.text("n"))
        _ = stubs.resolve(request("GET", "https://h/n"))

        let (log, entries) = try Self.archive(stubs.trafficHAR(byteLimit: Self.oneMiB))
        #expect(entries.count == 1)
        #expect((log["comment"] as? String)?.contains("did not keep its answers") == true)
    }

    @Test func aMissIsAnEntryWithoutAResponseThatSaysWhy() throws {
        let stubs = Self.keepingRegistry()
        stubs.stub(.get, "https://api.example.com/me").respond(.text("Ada"))
        _ = stubs.resolve(request("GET", "https://api.example.com/me"))
        _ = stubs.resolve(request("GET", "https://api.example.com/missing"))
        let entries = try Self.archive(stubs.trafficHAR(byteLimit: Self.oneMiB)).entries

        #expect(entries.count == 2)
        let miss = try #require(entries.last)
        let response = try #require(miss["response"] as? [String: Any])
        #expect(response["status"] as? Int == 0)
        #expect((miss["comment"] as? String)?.contains("no stub matched") == true)
        #expect((miss["comment"] as? String)?.contains("unmatched-requests.txt") == true)
    }
}
