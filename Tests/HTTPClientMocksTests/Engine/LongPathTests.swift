import Foundation
import HTTPClient
import HTTPClientMocks
@_spi(Engine) import HTTPClientStubs
import Testing

/// Matching a request costs time linear in its path's length, whatever stubs are registered:
/// the work is counted, not timed (the index keys looked up for a path).
@Suite("Long paths are matched in linear time")
struct LongPathTests {
    private func stubs() -> StubRegistry {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "/a/b").respond(.status(200))
        stubs.stub(.get, "/a/{id}").respond(.status(200))
        stubs.stub(.get, .prefix("/a/a/")).respond(.status(200))
        return stubs
    }

    private func path(segments: Int) -> String {
        String(repeating: "/a", count: segments)
    }

    @Test func theIndexKeysOfAPathDoNotGrowWithItsLength() {
        let stubs = stubs()
        let short = stubs.indexKeyCount(for: RecordedRequest(request("GET", "https://h" + path(segments: 1_000))))
        let long = stubs.indexKeyCount(for: RecordedRequest(request("GET", "https://h" + path(segments: 100_000))))
        #expect(short == long)
        #expect(long <= 8)
    }

    @Test func aPathOfAHundredThousandSegmentsIsMatched() {
        let stubs = stubs()
        let template = stubs.stub(.get, .prefix("/a/a/a/")).respond(.status(204))
        #expect(stubs.status(for: request("GET", "https://h" + path(segments: 100_000))) == 204)
        #expect(template.callCount == 1)
    }

    @Test func theLeadingSegmentsOfATemplateStillFindItsRequests() {
        let stubs = stubs()
        #expect(stubs.firstMatch(for: RecordedRequest(request("GET", "https://h/a/7")))?.description.contains("/a/{id}") == true)
        #expect(stubs.firstMatch(for: RecordedRequest(request("GET", "https://h/a/a/x/y")))?.description.contains("/a/a/") == true)
        #expect(stubs.firstMatch(for: RecordedRequest(request("GET", "https://h/b/7"))) == nil)
    }
}
