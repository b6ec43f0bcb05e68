import Foundation
import HTTPClient
import HTTPClientMocks
@_spi(Engine) import HTTPClientStubs
import Testing

/// The index is an optimisation only: for any registry and any request, the stub it finds must
/// be the one a plain scan finds (the newest stub that matches and is not exhausted). Random
/// registries of every kind of stub the index files differently (exact paths, templates,
/// prefixes, full URLs with queries, required query items and headers, conditions added later,
/// removed and exhausted stubs) are compared against that scan.
@Suite("The index finds what a scan finds")
struct IndexEquivalenceTests {
    private static let segments = ["a", "b", "v1", "items", "caf%C3%A9", ""]
    private static let names = ["page", "q", "tag"]
    /// Escapes that decode to the same bytes or to bytes Unicode would fold (`%C3%A9` and
    /// `e%CC%81`), and to bytes that are not UTF-8 (`%FF`, `%ff`) or to the text of one (`%25FF`).
    private static let values = ["1", "2", "", "caf%C3%A9", "%C3%A9", "e%CC%81", "%FF", "%ff", "%25FF"]

    private func path(_ random: inout SeededGenerator) -> String {
        "/"
            + (0..<Int.random(in: 1...3, using: &random)).map { _ in Self.segments.randomElement(using: &random) ?? "a" }.joined(
                separator: "/")
    }

    private func query(_ random: inout SeededGenerator) -> String {
        (0..<Int.random(in: 0...3, using: &random)).map { _ in
            "\(Self.names.randomElement(using: &random) ?? "q")=\(Self.values.randomElement(using: &random) ?? "1")"
        }.joined(separator: "&")
    }

    private func decoded(_ text: String) -> String { text.removingPercentEncoding ?? text }

    private func register(in stubs: StubRegistry, _ random: inout SeededGenerator) -> Stub {
        let method: HTTPMethod = Bool.random(using: &random) ? .get : .post
        let header = { (random: inout SeededGenerator) in "\(Int.random(in: 0...2, using: &random))" }
        let stub: Stub
        switch Int.random(in: 0..<8, using: &random) {
        case 0: stub = stubs.stub(method, StubTarget(path(&random)))
        case 1:
            var parts = path(&random).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            parts[Int.random(in: 1..<parts.count, using: &random)] = "{id}"
            stub = stubs.stub(method, StubTarget(parts.joined(separator: "/")))
        case 2: stub = stubs.stub(method, .prefix(String(path(&random).dropLast(Int.random(in: 0...2, using: &random)))))
        case 3: stub = stubs.stub(method, StubTarget("https://h" + path(&random) + "?" + query(&random)))
        case 4:
            let item = (Self.names.randomElement(using: &random) ?? "q", decoded(Self.values.randomElement(using: &random) ?? "1"))
            stub = stubs.stub(method, StubTarget(path(&random))).matching(.query([item.0: item.1]))
        case 5: stub = stubs.stub(where: .header("X-Variant", header(&random)))
        case 6: stub = stubs.stub(where: .header("X-Variant", header(&random)) || .header("X-Other", header(&random)))
        default: stub = stubs.stub(where: .path(StubTarget(path(&random))))
        }
        if Int.random(in: 0..<4, using: &random) == 0 { stub.matching(.header("x-variant", header(&random))) }
        if Int.random(in: 0..<10, using: &random) == 0 { stub.times(0) }
        return stub
    }

    private func request(_ random: inout SeededGenerator) -> URLRequest {
        var request = URLRequest(url: testURL("https://h" + path(&random) + "?" + query(&random)))
        request.httpMethod = Bool.random(using: &random) ? "GET" : "POST"
        if Bool.random(using: &random) { request.setValue("\(Int.random(in: 0...2, using: &random))", forHTTPHeaderField: "X-Variant") }
        if Bool.random(using: &random) { request.setValue("\(Int.random(in: 0...2, using: &random))", forHTTPHeaderField: "X-Other") }
        return request
    }

    @Test(arguments: 0..<40)
    func theIndexedMatchIsTheNewestStubAScanFinds(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let stubs = StubRegistry(reporting: .disabled)
        var registered: [Stub] = []
        for _ in 0..<Int.random(in: 1...60, using: &random) {
            registered.append(register(in: stubs, &random))
            if Int.random(in: 0..<8, using: &random) == 0, let victim = registered.randomElement(using: &random) {
                stubs.remove(victim)
            }
        }
        var found = 0
        for _ in 0..<200 {
            let sent = RecordedRequest(request(&random))
            let scanned = stubs.stubs.reversed().first { $0.matcher.matches(sent) && !$0.isExhausted }
            let indexed = stubs.firstMatch(for: sent)
            #expect(
                indexed === scanned,
                "seed \(seed): \(sent) found \(indexed.map { "\($0)" } ?? "nothing"), a scan \(scanned.map { "\($0)" } ?? "nothing")")
            if scanned != nil { found += 1 }
        }
        // The comparison means something only if requests do match stubs.
        #expect(found > 0, "seed \(seed): no request matched any stub")
    }
}
