import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@_spi(Engine) @testable import HTTPClientStubs

/// Stubs registered with a query (`stubs.stub(.get, "/items?page=1")`) and query conditions: a
/// stub answers exactly the requests whose query means the same, that is the same multiset of
/// (name, value-or-none) pairs once each is percent-decoded to bytes (any order, encoded or not,
/// repeated names counted, a bare name apart from an empty value, `+` a plus, empty pairs
/// skipped, an escape that is not `%` and two hex digits kept as written, hex in either case,
/// no Unicode normalisation).
@Suite("Query matching with percent-escapes")
struct QueryEscapeMatchingTests {
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

    /// `%FF` is the byte 0xFF, not UTF-8; `%25FF` is the text `%FF`: two queries, whichever way
    /// round.
    @Test func anEscapeOfANonUTF8ByteIsNotTheTextOfTheEscape() async {
        await Self.everyWayAgrees("q=%25FF", "q=%FF", same: false)
        await Self.everyWayAgrees("q=%FF", "q=%25FF", same: false)
        await Self.everyWayAgrees("q=%2580", "q=%80", same: false)
        await Self.everyWayAgrees("%FF=1", "%25FF=1", same: false)
    }

    /// The same non-UTF-8 byte escaped with lower- and upper-case hex is one query, as `%c3%a9`
    /// and `%C3%A9` are.
    @Test func theCaseOfAnEscapesHexDigitsDoesNotMatterForANonUTF8Byte() async {
        await Self.everyWayAgrees("q=%ff", "q=%FF", same: true)
        await Self.everyWayAgrees("%fe%FF=%aB", "%FE%ff=%Ab", same: true)
    }

    /// A malformed escape is kept as its bytes and every other escape of its part is decoded:
    /// `%41%zz` is `A%zz`, `%FF%41` is `%FFA`, and `%%25` (a `%` then an escaped `%`) is not the
    /// text `%%25`.
    @Test func aMalformedEscapeLeavesTheOtherEscapesOfItsPartDecoded() async {
        await Self.everyWayAgrees("q=%41%zz", "q=A%zz", same: true)
        await Self.everyWayAgrees("q=%FF%41", "q=%FFA", same: true)
        await Self.everyWayAgrees("q=%%25", "q=%25%2525", same: false)
        await Self.everyWayAgrees("q=%4", "q=%254", same: true)
    }

    /// Names and values are compared as bytes: canonically equivalent text that a server sees
    /// as different bytes (`é` precomposed, and `e` with a combining acute accent) is two queries.
    @Test func canonicallyEquivalentButDifferentBytesAreDifferentQueries() async {
        await Self.everyWayAgrees("q=%C3%A9", "q=e%CC%81", same: false)
        await Self.everyWayAgrees("%C3%A9=1", "e%CC%81=1", same: false)
        await Self.everyWayAgrees("q=e%CC%81", "q=e%cc%81", same: true)
    }

    // MARK: - Conditions on items

    /// Whether `matcher` accepts a GET of `/s?<query>`.
    private static func accepts(_ matcher: RequestMatcher, _ query: String) -> Bool {
        matcher.matches(RecordedRequest(request("GET", "https://h/s?" + query)))
    }

    @Test func itemConditionsCompareTheBytesOfTheirText() {
        let composed = "\u{E9}"
        let decomposed = "e\u{301}"
        #expect(composed == decomposed, "Swift calls the two equal; the bytes differ")
        for matcher in [RequestMatcher.query(["q": composed]), .queryExactly(["q": composed])] {
            #expect(Self.accepts(matcher, "q=%C3%A9"), "\(matcher)")
            #expect(!Self.accepts(matcher, "q=e%CC%81"), "\(matcher)")
        }
        for matcher in [
            RequestMatcher.query([URLQueryItem(name: decomposed, value: nil)]), .queryExactly([.init(name: decomposed, value: nil)]),
        ] {
            #expect(Self.accepts(matcher, "e%CC%81"), "\(matcher)")
            #expect(!Self.accepts(matcher, "%C3%A9"), "\(matcher)")
        }
    }

    @Test func anItemsTextIsNeverTakenForAnEscapedByte() {
        // The text "%FF" is the bytes %, F, F: sent as %25FF, never as the byte %FF.
        for matcher in [RequestMatcher.query(["q": "%FF"]), .queryExactly(["q": "%FF"])] {
            #expect(Self.accepts(matcher, "q=%25FF"), "\(matcher)")
            #expect(!Self.accepts(matcher, "q=%FF"), "\(matcher)")
        }
    }

    @Test func queryItemsAreDecodedTextAndKeepAPartThatIsNotUTF8AsWritten() {
        // Read from the text itself: on Linux `URL(string:)` would escape every `%` of it.
        let items = RecordedRequest.queryItems(in: "https://h/s?q=%41%zz&b=%FF%41&%c3%a9=e%CC%81&n=%25FF")
        #expect(
            items == [
                URLQueryItem(name: "q", value: "A%zz"), URLQueryItem(name: "b", value: "%FF%41"),
                URLQueryItem(name: "\u{E9}", value: "e\u{301}"), URLQueryItem(name: "n", value: "%FF"),
            ])
        #expect(items[2].value?.unicodeScalars.count == 2, "the decomposed value keeps its two scalars")
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

    /// A target with a character a URL must escape is read as `URL(string:)` writes it: on
    /// Linux that escapes every `%` of the query too (`x=%41` is sent as `x=%2541`), and the
    /// request made from the very text of the target still finds its stub, on every platform.
    @Test(arguments: ["q=é&x=%41", "q=a b&x=%41", "x=%41|", "q=%C3%A9&x=%41&city=東京"])
    func aRequestMadeFromATargetsOwnTextFindsItsStub(query: String) async {
        for way in Way.allCases {
            #expect(await Self.answers(stub: query, request: query, via: way), "\(way): \(query)")
        }
    }

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
