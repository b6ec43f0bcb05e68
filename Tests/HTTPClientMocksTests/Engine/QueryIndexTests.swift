import Foundation
import HTTPClient
import HTTPClientMocks
@_spi(Engine) import HTTPClientStubs
import Testing

/// Stubs for full URLs with a query are found through the query, not by scanning their path's
/// stubs; the behaviour must be the same as scanning: the newest matching stub wins.
@Suite("Stubs filed by exact query")
struct QueryIndexTests {
    @Test func eachOfAThousandQueryVariantsFindsItsOwnStub() {
        let stubs = StubRegistry(reporting: .disabled)
        for page in 0..<1000 { stubs.stub(.get, "https://api.example.com/items?page=\(page)&size=20").respond(.text("page \(page)")) }
        #expect(answer(stubs, "https://api.example.com/items?page=0&size=20") == "page 0")
        #expect(answer(stubs, "https://api.example.com/items?page=999&size=20") == "page 999")
        #expect(answer(stubs, "https://api.example.com/items?page=1000&size=20") == nil)
    }

    @Test func theOrderOfTheQueryDoesNotMatter() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "https://h/search?q=swift&sort=new").respond(.text("found"))
        #expect(answer(stubs, "https://h/search?sort=new&q=swift") == "found")
    }

    @Test func repeatedParametersMustRepeat() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "https://h/filter?tag=a&tag=b").respond(.text("both"))
        #expect(answer(stubs, "https://h/filter?tag=b&tag=a") == "both")
        #expect(answer(stubs, "https://h/filter?tag=a") == nil)
        #expect(answer(stubs, "https://h/filter?tag=a&tag=b&tag=a") == nil)
    }

    @Test func percentEncodingIsComparedDecoded() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "https://h/search?q=caf%C3%A9%20au%20lait").respond(.text("coffee"))
        #expect(answer(stubs, "https://h/search?q=caf%C3%A9%20au%20lait") == "coffee")
        #expect(answer(stubs, "https://h/search?q=caf%c3%a9%20au%20lait") == "coffee")
    }

    @Test func aNewerStubOnThePathWinsOverAnOlderOneForTheQueryAndTheReverse() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "https://h/items?page=2").respond(.text("query, older"))
        stubs.stub(.get, "/items").respond(.text("path, newer"))
        #expect(answer(stubs, "https://h/items?page=2") == "path, newer")

        let reversed = StubRegistry(reporting: .disabled)
        reversed.stub(.get, "/items").respond(.text("path, older"))
        reversed.stub(.get, "https://h/items?page=2").respond(.text("query, newer"))
        #expect(answer(reversed, "https://h/items?page=2") == "query, newer")
        #expect(answer(reversed, "https://h/items?page=3") == "path, older")
    }

    @Test func anExhaustedStubInABucketGivesWayToTheOlderOne() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "https://h/items?page=1").respond(.text("always"))
        stubs.stub(.get, "https://h/items?page=1").respond(.text("once")).once()
        #expect(answer(stubs, "https://h/items?page=1") == "once")
        #expect(answer(stubs, "https://h/items?page=1") == "always")
    }

    @Test func aRemovedStubLeavesItsBucketAndTheOthersStay() {
        let stubs = StubRegistry(reporting: .disabled)
        let first = stubs.stub(.get, "https://h/items?page=1").respond(.text("one"))
        stubs.stub(.get, "https://h/items?page=2").respond(.text("two"))
        stubs.remove(first)
        #expect(answer(stubs, "https://h/items?page=1") == nil)
        #expect(answer(stubs, "https://h/items?page=2") == "two")
        stubs.stub(.get, "https://h/items?page=1").respond(.text("one again"))
        #expect(answer(stubs, "https://h/items?page=1") == "one again")
    }

    @Test func hostAndSchemeStillCountInsideABucket() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "https://a.example/items?page=1").respond(.text("a"))
        stubs.stub(.get, "https://b.example/items?page=1").respond(.text("b"))
        #expect(answer(stubs, "https://a.example/items?page=1") == "a")
        #expect(answer(stubs, "https://b.example/items?page=1") == "b")
        #expect(answer(stubs, "http://a.example/items?page=1") == nil)
    }

    @Test func anUnmatchedReportStillNamesTheNearQueryVariants() {
        let failures = CollectedFailures()
        let stubs = StubRegistry(reporting: failures.reporting)
        stubs.stub(.get, "https://h/items?page=1").respond(.text("one"))
        _ = stubs.resolve(request("GET", "https://h/items?page=9"))
        #expect(failures.all.first?.contains("query {page=9} != {page=1}") == true)
    }

    /// A request's key is built from its URL's text, a stub's from its target's text: they
    /// agree however the same query is written (order, empty pairs, a fragment, escapes).
    @Test(arguments: [
        ("a=1&b=2", "b=2&a=1"), ("a=1&b=2", "&a=1&&b=2&"), ("a=1", "a=1#b=2"), ("q=%26%3D%25", "q=%26%3d%25"),
        ("q=caf%C3%A9", "q=caf%c3%a9"), ("a=b=c", "a=b%3Dc"), ("=b", "=b"), ("bare", "bare"), ("x=%2", "x=%2"),
    ])
    func aRequestFindsTheStubForItsQueryWrittenAnotherWay(stub: String, request: String) {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, StubTarget("https://h/items?\(stub)")).respond(.text("found"))
        #expect(answer(stubs, "https://h/items?\(request)") == "found")
    }

    /// A request's key takes a shortcut for a plain ASCII query (no `%`, one `=` a pair at
    /// most) and the general way for any other; a stub's key always takes the general way.
    /// Random queries must find their stub whatever the order of their pairs, and one pair
    /// more must miss it.
    @Test func randomQueriesFindTheirStubInAnyOrderOfTheirPairs() {
        var random = SeededGenerator(seed: 25)
        // What a query may hold as written (RFC 3986), escapes and non-ASCII text included.
        let pieces = [
            "a", "b", "Z", "0", "-", "_", ".", "~", "+", "=", "!", "$", "'", "(", ")", "*", ",", ";", ":", "@", "/", "?",
            "%41", "%3D", "%26", "%25", "%C3%A9", "é",
        ]
        for round in 0..<400 {
            let pairs = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                (0..<Int.random(in: 0...4, using: &random)).map { _ in pieces[Int.random(in: pieces.indices, using: &random)] }
                    .joined()
            }
            let query = pairs.joined(separator: "&")
            let stubs = StubRegistry(reporting: .disabled)
            stubs.stub(.get, StubTarget("https://h/items?\(query)")).respond(.text("found"))
            let shuffled = pairs.shuffled(using: &random).joined(separator: "&")
            // Asked as `URL(string:)` writes the same text (`é` escaped; on Linux, with it, every
            // `%` too), as a stub's target is read; a text `URL` refuses is not a request.
            guard let url = URL(string: "https://h/items?\(shuffled)")?.absoluteString else { continue }
            #expect(answer(stubs, url) == "found", "round \(round): \(query) asked as \(shuffled)")
            #expect(answer(stubs, url + "&more=1") == nil, "round \(round): \(query) asked with one pair more")
        }
    }

    /// Hundreds of requests at once, each with its query's pairs in another order, through
    /// every transport: every one gets its own variant's answer.
    @Test(arguments: Transport.allCases)
    func hundredsOfQueryVariantsAskedAtOnceEachGetTheirOwnAnswer(_ transport: Transport) async throws {
        let stubs = StubRegistry(reporting: .disabled)
        for page in 0..<300 { stubs.stub(.get, "/items?page=\(page)&size=20").respond(.text("page \(page)")) }
        let session = try transport.session(stubs)
        let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for page in 0..<300 {
                group.addTask {
                    let (data, _) = try await session.data(for: URLRequest(url: testURL("https://h/items?size=20&page=\(page)")))
                    return (page, String(decoding: data, as: UTF8.self))
                }
            }
            return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
        }
        #expect(answers.count == 300)
        #expect(answers.allSatisfy { $0.value == "page \($0.key)" })
    }

    /// A `?` inside the fragment starts no query: the server is sent the path alone.
    @Test func aQuestionMarkInTheFragmentIsNoQuery() {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "https://h/items").respond(.text("no query"))
        stubs.stub(.get, "https://h/items?page=1").respond(.text("page 1"))
        #expect(answer(stubs, "https://h/items#top?page=1") == "no query")
        #expect(answer(stubs, "https://h/items?page=1#top?page=2") == "page 1")
    }

    /// What decoding must not merge: an empty value and none, a plus and a space, an escaped
    /// delimiter and a real one.
    @Test(arguments: [("a=", "a"), ("q=a+b", "q=a%20b"), ("a=b%26c", "a=b&c"), ("a=1&a=1", "a=1")])
    func aRequestMissesTheStubOfAnotherQuery(stub: String, request: String) {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, StubTarget("https://h/items?\(stub)")).respond(.text("found"))
        #expect(answer(stubs, "https://h/items?\(request)") == nil)
    }
}
