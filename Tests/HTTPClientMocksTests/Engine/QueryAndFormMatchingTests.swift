import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

@testable import HTTPClientStubs

/// Query and form conditions: bare names (`?flag`) against empty values (`?flag=`), exact
/// lists, and the hostile text they are parsed from.
@Suite("Query and form matching")
struct QueryAndFormMatchingTests {
    private func evaluate(_ matcher: RequestMatcher, _ urlRequest: URLRequest) -> RequestMatcher.Evaluation {
        matcher.evaluate(RecordedRequest(urlRequest))
    }

    private func form(_ body: String) -> URLRequest {
        request("POST", "https://h/f", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(body.utf8))
    }

    private let bare = request("GET", "https://h/s?flag")
    private let empty = request("GET", "https://h/s?flag=")

    @Test func queryItemsTellABareNameFromAnEmptyValue() {
        let bareItem = URLQueryItem(name: "flag", value: nil)
        let emptyItem = URLQueryItem(name: "flag", value: "")
        #expect(evaluate(.query([bareItem]), bare).matched)
        #expect(!evaluate(.query([bareItem]), empty).matched)
        #expect(evaluate(.query([emptyItem]), empty).matched)
        #expect(!evaluate(.query([emptyItem]), bare).matched)
        #expect(evaluate(.query([emptyItem]), bare).failures == ["query {flag} lacks {flag=}"])
    }

    @Test func aDictionaryQueryMatchesABareNameAndAnEmptyValueAlike() {
        #expect(evaluate(.query(["flag": ""]), bare).matched)
        #expect(evaluate(.query(["flag": ""]), empty).matched)
        #expect(evaluate(.queryExactly(["flag": ""]), bare).matched)
        #expect(evaluate(.queryExactly(["flag": ""]), empty).matched)
    }

    @Test func anExactQueryOfItemsTellsABareNameFromAnEmptyValue() {
        #expect(evaluate(.queryExactly([URLQueryItem(name: "flag", value: nil)]), bare).matched)
        #expect(!evaluate(.queryExactly([URLQueryItem(name: "flag", value: nil)]), empty).matched)
        #expect(
            evaluate(.queryExactly([URLQueryItem(name: "flag", value: "")]), bare).failures == ["query {flag} != {flag=}"])
    }

    @Test func anExactQueryRejectsExtraItemsAndIgnoresOrder() {
        let get = request("GET", "https://h/s?b=2&flag&a=1")
        #expect(
            evaluate(.queryExactly([.init(name: "a", value: "1"), .init(name: "flag", value: nil), .init(name: "b", value: "2")]), get)
                .matched)
        #expect(!evaluate(.queryExactly(["a": "1", "b": "2"]), get).matched)
        #expect(evaluate(.queryExactly(["a": "1", "b": "2", "flag": ""]), get).matched)
    }

    @Test func anExactQueryCountsRepeatedNames() {
        let get = request("GET", "https://h/s?tag=x&tag=x")
        #expect(!evaluate(.queryExactly([URLQueryItem(name: "tag", value: "x")]), get).matched)
        #expect(evaluate(.queryExactly(Array(repeating: URLQueryItem(name: "tag", value: "x"), count: 2)), get).matched)
    }

    @Test func delimitersInsideNamesAndValuesDoNotMakeTwoQueriesEqual() {
        // `?a%3Db` is one bare name `a=b`; `?a=b` is the name `a` with the value `b`.
        let encoded = request("GET", "https://h/s?a%3Db")
        let plain = request("GET", "https://h/s?a=b")
        let nameWithEquals = RequestMatcher.queryExactly([URLQueryItem(name: "a=b", value: nil)])
        #expect(evaluate(nameWithEquals, encoded).matched)
        #expect(!evaluate(nameWithEquals, plain).matched)
        #expect(!evaluate(.queryExactly([URLQueryItem(name: "a", value: "b&c")]), request("GET", "https://h/s?a=b&c")).matched)
        #expect(evaluate(.queryExactly([URLQueryItem(name: "a", value: "b&c")]), request("GET", "https://h/s?a=b%26c")).matched)
    }

    @Test func aTargetWithABareQueryNameAnswersOnlyThatQuery() async throws {
        let stubs = StubRegistry(reporting: .disabled)
        stubs.stub(.get, "https://h/s?flag").respond(.text("bare"))
        stubs.stub(.get, "https://h/s?flag=").respond(.text("empty"))
        let session = MockURLSession(stubs: stubs)
        #expect(try await session.data(for: bare).0 == Data("bare".utf8))
        #expect(try await session.data(for: empty).0 == Data("empty".utf8))
    }

    @Test func aQueryKeepsAPlusAsAPlus() {
        let get = request("GET", "https://h/s?q=a+b")
        #expect(evaluate(.query(["q": "a+b"]), get).matched)
    }

    @Test func anExactFormRejectsExtraFieldsAndIgnoresOrder() {
        let post = form("b=2&a=1")
        #expect(evaluate(.formBodyExactly(["a": "1", "b": "2"]), post).matched)
        #expect(!evaluate(.formBodyExactly(["a": "1"]), post).matched)
        #expect(evaluate(.formBodyExactly(["a": "1"]), post).failures == ["form {b=2, a=1} != {a=1}"])
    }

    @Test func valuelessFormFieldsAreExpressible() {
        let post = form("a&b=1")
        #expect(evaluate(.formBody([URLQueryItem(name: "a", value: nil)]), post).matched)
        #expect(!evaluate(.formBody([URLQueryItem(name: "a", value: "")]), post).matched)
        #expect(evaluate(.formBody(["a": ""]), post).matched)
        #expect(evaluate(.formBodyExactly([URLQueryItem(name: "a", value: nil), URLQueryItem(name: "b", value: "1")]), post).matched)
        #expect(!evaluate(.formBodyExactly([URLQueryItem(name: "a", value: ""), URLQueryItem(name: "b", value: "1")]), post).matched)
    }

    @Test func aRepeatedFormFieldMatchesEachOfItsValues() {
        let post = form("tag=x&tag=y")
        #expect(evaluate(.formBody(["tag": "x"]), post).matched)
        #expect(evaluate(.formBody(["tag": "y"]), post).matched)
        #expect(evaluate(.formBody([URLQueryItem(name: "tag", value: "x"), URLQueryItem(name: "tag", value: "y")]), post).matched)
        #expect(!evaluate(.formBodyExactly(["tag": "y"]), post).matched)
    }

    @Test func formTextIsDecodedWithPlusAsSpaceAndEmptyPairsSkipped() {
        let post = form("&&name=Ada+L%C3%B6vel%2Bace&&note=a%3Db=c&")
        #expect(evaluate(.formBodyExactly(["name": "Ada Lövel+ace", "note": "a=b=c"]), post).matched)
    }

    // MARK: Hostile text, as a property

    /// Names and values from characters a form or a query must escape, with repeats and
    /// bare names; the same seed gives the same cases.
    private static func randomItems(_ generator: inout some RandomNumberGenerator) -> [URLQueryItem] {
        let alphabet = Array("ab =&+%?#é\u{301}/;")
        func text() -> String {
            String((0..<Int.random(in: 0...4, using: &generator)).map { _ in alphabet.randomElement(using: &generator) ?? "a" })
        }
        return (0..<Int.random(in: 0...5, using: &generator)).map { _ in
            URLQueryItem(name: text(), value: Bool.random(using: &generator) ? nil : text())
        }
        // An item with an empty name and no value would be an empty pair, which both parsers skip.
        .filter { !$0.name.isEmpty || $0.value != nil }
    }

    private static func encoded(_ items: [URLQueryItem]) -> String {
        func escape(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text }
        return items.map { item in escape(item.name) + (item.value.map { "=" + escape($0) } ?? "") }.joined(separator: "&")
    }

    @Test("escaped items read back as they were, in a query and in a form", arguments: 0..<200)
    func escapedItemsRoundTrip(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let items = Self.randomItems(&generator)
        let text = Self.encoded(items)
        let get = request("GET", "https://h/s?" + text)
        #expect(RecordedRequest(get).queryItems == items, "\(text)")
        #expect(evaluate(.queryExactly(items), get).matched, "\(text)")
        #expect(evaluate(.query(items), get).matched, "\(text)")
        #expect(RecordedRequest(form(text)).formItems == items, "\(text)")
        #expect(evaluate(.formBodyExactly(items), form(text)).matched, "\(text)")
    }
}
