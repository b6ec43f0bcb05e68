import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@_spi(Engine) @testable import HTTPClientStubs

/// Session 30's attack on stubs registered with a query (`stubs.stub(.get, "/items?page=1")`):
/// a stub answers exactly the requests whose query means the same, that is the same multiset of
/// (name, value-or-none) pairs once each is percent-decoded to bytes (any order, encoded or not,
/// repeated names counted, a bare name apart from an empty value, `+` a plus, empty pairs
/// skipped, an escape that is not `%` and two hex digits kept as written). What does not hold
/// yet is recorded with `withKnownIssue`.
@Suite("Query matching attack (session 30)")
struct QueryAttack30Tests {
    /// The three ways a test reaches the stubs.
    enum Way: String, CaseIterable, Sendable {
        case resolve, mockSession, urlSession
    }

    /// Whether the stub registered for `/s?<stubQuery>` answers a GET of `/s?<requestQuery>`.
    static func answers(stub stubQuery: String, request requestQuery: String, via way: Way) async -> Bool {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, StubTarget("https://h/s?" + stubQuery)).respond(.text("hit"))
        let url = "https://h/s?" + requestQuery
        switch way {
        case .resolve:
            return answer(stubs, url) == "hit"
        case .mockSession:
            let data = try? await MockURLSession(stubs: stubs).data(for: request("GET", url)).0
            return data == Data("hit".utf8)
        case .urlSession:
            let data = try? await stubs.makeURLSession().data(for: request("GET", url)).0
            return data == Data("hit".utf8)
        }
    }

    /// The reference: a query as a sorted list of decoded (name, value-or-none) byte pairs.
    static func meaning(_ query: String) -> [[UInt8]] {
        let bytes = Array(query.utf8)
        func decoded(_ part: ArraySlice<UInt8>) -> [UInt8] {
            var out: [UInt8] = []
            var index = part.startIndex
            while index < part.endIndex {
                if part[index] == UInt8(ascii: "%"), index + 2 < part.endIndex, let high = hex(part[index + 1]),
                    let low = hex(part[index + 2])
                {
                    out.append(high << 4 | low)
                    index += 3
                } else {
                    out.append(part[index])
                    index += 1
                }
            }
            return out
        }
        var pairs: [[UInt8]] = []
        for pair in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                // name, 1, value: distinct from a bare name (0 after it) whatever the bytes.
                let name = decoded(pair[..<equals])
                pairs.append(
                    [UInt8(name.count >> 16), UInt8(name.count >> 8 & 0xFF), UInt8(name.count & 0xFF)] + name + [1]
                        + decoded(pair[(equals + 1)...]))
            } else {
                let name = decoded(pair)
                pairs.append([UInt8(name.count >> 16), UInt8(name.count >> 8 & 0xFF), UInt8(name.count & 0xFF)] + name + [0])
            }
        }
        return pairs.sorted { $0.lexicographicallyPrecedes($1) }
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    // MARK: - What a query means

    /// (stub query, request query, whether they mean the same) on every way.
    static let heldCases: [(String, String, Bool)] = [
        ("page=1&sort=asc", "sort=asc&page=1", true),
        ("page=1", "pag%65=%31", true),
        ("tag=a&tag=b", "tag=b&tag=a", true),
        ("tag=a&tag=b", "tag=a", false),
        ("tag=a&tag=b", "tag=a&tag=a&tag=b", false),
        ("flag", "flag=", false),
        ("flag=", "flag", false),
        ("q=a+b", "q=a%2Bb", true),
        ("q=a+b", "q=a%20b", false),
        ("q=%C3%A9", "q=%c3%a9", true),
        ("a=%26", "a=&", false),
        ("a=%26b", "a=&b", false),
        ("a%3Db", "a=b", false),
        ("a=%3D", "a==", true),
        ("a==b", "a=%3Db", true),
        ("=", "%3D", false),
        ("a=1&&b=2", "a=1&b=2", true),
        ("&a=1&", "a=1", true),
        ("n=%00", "n=%00", true),
        ("n=%00", "n=", false),
        ("%00", "%00=", false),
        ("q=%FF", "q=%FE", false),
        ("q=%zz", "q=%zz", true),
        ("q=%zz", "q=%25zz", true),
        ("q=%FF", "q=%EF%BF%BD", false),
        ("q=%E9", "q=%C3%A9", false),
    ]

    @Test(arguments: Way.allCases, heldCases.indices)
    func aStubAnswersExactlyTheQueriesThatMeanTheSame(way: Way, index: Int) async {
        let (stubQuery, requestQuery, same) = Self.heldCases[index]
        #expect((Self.meaning(stubQuery) == Self.meaning(requestQuery)) == same, "the reference disagrees with the table")
        #expect(await Self.answers(stub: stubQuery, request: requestQuery, via: way) == same, "\(stubQuery) vs \(requestQuery)")
    }

    /// Whether every way answers `stubQuery`'s stub for `requestQuery` as `same` says.
    private static func everyWayAgrees(_ stubQuery: String, _ requestQuery: String, same: Bool) async {
        #expect((meaning(stubQuery) == meaning(requestQuery)) == same, "the reference disagrees with the test")
        for way in Way.allCases {
            #expect(await answers(stub: stubQuery, request: requestQuery, via: way) == same, "\(way): \(stubQuery) vs \(requestQuery)")
        }
    }

    /// Finding (medium): a `%` escape whose bytes are not UTF-8 is kept as written, `%FF` as the
    /// three characters `%`, `F`, `F`, so it is taken for the escaped text `%25FF`: the stub for
    /// the literal text answers a request that sends the byte, and the other way round.
    @Test func anEscapeOfANonUTF8ByteIsNotTheTextOfTheEscape() async {
        await withKnownIssue("?q=%FF (byte 0xFF) and ?q=%25FF (the text %FF) should be two queries; the stub for one answers the other") {
            await Self.everyWayAgrees("q=%25FF", "q=%FF", same: false)
            await Self.everyWayAgrees("q=%2580", "q=%80", same: false)
        }
    }

    /// Finding (low): the same non-UTF-8 byte escaped with lower- and upper-case hex is one query,
    /// as `%c3%a9` and `%C3%A9` already are.
    @Test func theCaseOfAnEscapesHexDigitsDoesNotMatterForANonUTF8Byte() async {
        await withKnownIssue("?q=%ff and ?q=%FF send the same byte and should find the same stub") {
            await Self.everyWayAgrees("q=%ff", "q=%FF", same: true)
        }
    }

    /// Finding (low): one malformed or non-UTF-8 escape in a name or value leaves every other
    /// escape of it undecoded: misses (`%41%zz` against `A%zz`, `%FF%41` against `%FFA`) and a
    /// false hit (the stub for `%%25`, a `%` then the text `%`, answers the text `%%25`).
    @Test func aMalformedEscapeLeavesTheOtherEscapesOfItsPartDecoded() async {
        await withKnownIssue("?q=%41%zz should mean A%zz, as ?q=A%zz does (the %41 is left undecoded)") {
            await Self.everyWayAgrees("q=%41%zz", "q=A%zz", same: true)
            await Self.everyWayAgrees("q=%FF%41", "q=%FFA", same: true)
            await Self.everyWayAgrees("q=%%25", "q=%25%2525", same: false)
        }
    }

    /// Finding (low): names and values are compared as Swift strings, so canonically equivalent
    /// text matches although the bytes a server sees differ (`é` precomposed against `e` and a
    /// combining acute accent).
    @Test func canonicallyEquivalentButDifferentBytesAreDifferentQueries() async {
        await withKnownIssue("?q=%C3%A9 and ?q=e%CC%81 are different bytes and should be different queries") {
            await Self.everyWayAgrees("q=%C3%A9", "q=e%CC%81", same: false)
            await Self.everyWayAgrees("%C3%A9=1", "e%CC%81=1", same: false)
        }
    }

    @Test(arguments: Way.allCases)
    func aQuestionMarkInsideAFragmentIsNoQuery(way: Way) async {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "https://h/items?page=1").respond(.text("query"))
        stubs.stub(.get, "https://h/items").respond(.text("bare"))
        let url = "https://h/items#top?page=1"
        let body: String?
        switch way {
        case .resolve: body = answer(stubs, url)
        case .mockSession:
            body = (try? await MockURLSession(stubs: stubs).data(for: request("GET", url)).0).map { String(decoding: $0, as: UTF8.self) }
        case .urlSession:
            body = (try? await stubs.makeURLSession().data(for: request("GET", url)).0).map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(body == "bare")
    }

    @Test(arguments: Way.allCases)
    func aRawNonASCIIQueryMatchesItsEncodedStub(way: Way) async {
        #expect(await Self.answers(stub: "q=%C3%A9t%C3%A9&city=%E6%9D%B1%E4%BA%AC", request: "city=東京&q=été", via: way))
    }

    // MARK: - Differential

    /// Finding (low, Linux): a target is read as written, but corelibs' `URL(string:)` escapes
    /// every `%` of a text that also has a character to escape (`é`, a space): the request made
    /// from the very text of the target asks for `x=%2541` (the text `%41`), and misses.
    #if os(Linux)
    @Test func aRequestMadeFromATargetsOwnTextFindsItsStub() async {
        await withKnownIssue("URL(string: \"https://h/s?q=é&x=%41\") should find the stub for \"/s?q=é&x=%41\"") {
            for way in Way.allCases {
                #expect(await Self.answers(stub: "q=é&x=%41", request: "q=é&x=%41", via: way), "\(way)")
            }
        }
    }
    #endif

    /// A random query of up to six pairs, from names, values and escapes that decode to UTF-8
    /// (ASCII only: corelibs' `URL(string:)` would escape the escapes of a text with `é`).
    static func randomQuery(_ random: inout SeededGenerator) -> String {
        let tokens = ["a", "b", "c", "1", "+", "%61", "%41", "%3D", "%26", "%25", "%2B", "%20", "%C3%A9", "%c3%a9", "~", "%00"]
        func text() -> String { (0..<Int.random(in: 0...3, using: &random)).map { _ in tokens.randomElement(using: &random)! }.joined() }
        return (0..<Int.random(in: 0...6, using: &random)).map { _ -> String in
            switch Int.random(in: 0..<10, using: &random) {
            case 0: ""
            case 1: text()
            case 2: text() + "==" + text()
            default: text() + "=" + text()
            }
        }.joined(separator: "&")
    }

    /// Another spelling of `query`, or another query: pairs reordered, repeated or dropped,
    /// characters escaped (delimiters too), escapes of letters decoded, hex case changed.
    static func variant(of query: String, _ random: inout SeededGenerator) -> String {
        var pairs = query.split(separator: "&", omittingEmptySubsequences: false).map(String.init)
        switch Int.random(in: 0..<8, using: &random) {
        case 0 where !pairs.isEmpty: pairs.append(pairs.randomElement(using: &random)!)
        case 1 where !pairs.isEmpty: pairs.remove(at: Int.random(in: 0..<pairs.count, using: &random))
        case 2: pairs.append("")
        default: break
        }
        pairs.shuffle(using: &random)
        var text = pairs.joined(separator: "&")
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                for (plain, escaped) in [("a", "%61"), ("b", "%62"), ("=", "%3D"), ("&", "%26"), ("+", "%2B")].shuffled(using: &random)
                where text.contains(plain) {
                    text = text.replacingOccurrences(of: plain, with: escaped)
                    break
                }
            case 1: text = text.replacingOccurrences(of: "%61", with: "a").replacingOccurrences(of: "%41", with: "A")
            case 2: text = text.replacingOccurrences(of: "%C3%A9", with: "%c3%a9").replacingOccurrences(of: "%3D", with: "%3d")
            default: text = text.replacingOccurrences(of: "=", with: "", options: [], range: text.range(of: "="))
            }
        }
        return text
    }

    @Test(arguments: Way.allCases)
    func aStubIsFoundExactlyWhenTheDecodedQueriesAreEqual(way: Way) async {
        var random = SeededGenerator(seed: 30)
        let rounds = way == .resolve ? 3000 : 300
        var disagreements: [String] = []
        var equalPairs = 0
        for _ in 0..<rounds {
            let stubQuery = Self.randomQuery(&random)
            let requestQuery = Bool.random(using: &random) ? Self.variant(of: stubQuery, &random) : Self.randomQuery(&random)
            let same = Self.meaning(stubQuery) == Self.meaning(requestQuery)
            if same { equalPairs += 1 }
            if await Self.answers(stub: stubQuery, request: requestQuery, via: way) != same {
                disagreements.append("\(stubQuery) vs \(requestQuery): should \(same ? "" : "not ")match")
            }
        }
        #expect(equalPairs > rounds / 5, "too few equal pairs to test anything")
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
    }

    // MARK: - Long queries (10,000 pairs; 100,000 took ten times as long when measured by hand)

    @Test func aStubWithTenThousandPairsAnswersThemInAnyOrder() async throws {
        let pairs = (0..<10_000).map { "k\($0)=v\($0 % 7)" }
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, StubTarget("https://h/s?" + pairs.joined(separator: "&"))).respond(.text("hit"))
        stubs.stub(.get, "https://h/s?k=1").respond(.text("small"))
        #expect(answer(stubs, "https://h/s?" + pairs.reversed().joined(separator: "&")) == "hit")
        let data = try await MockURLSession(stubs: stubs).data(
            for: request("GET", "https://h/s?" + pairs.shuffled().joined(separator: "&"))
        ).0
        #expect(data == Data("hit".utf8))
        #expect(answer(stubs, "https://h/s?" + pairs.dropLast().joined(separator: "&")) == nil)
    }

    @Test func tenThousandEscapedPairsTakeTheGeneralWayAndMatch() {
        let pairs = (0..<10_000).map { "k%3D\($0)=%C3%A9\($0)" }
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, StubTarget("https://h/s?" + pairs.joined(separator: "&"))).respond(.text("hit"))
        #expect(answer(stubs, "https://h/s?" + pairs.reversed().joined(separator: "&")) == "hit")
        #expect(answer(stubs, "https://h/s?" + pairs.dropFirst().joined(separator: "&")) == nil)
    }
}
