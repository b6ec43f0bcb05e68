import Foundation
import HTTPClient
import HTTPClientMocks
import Testing

/// `.jsonBody(containing:)` decides the first time by walking the body's bytes, and from the
/// second time by looking into the parsed tree: both must give the answer of parsing the body
/// and asking `JSONValue.contains`, for every body and expectation.
@Suite("JSON containment, walked and parsed")
struct JSONContainmentTests {
    /// The condition's answer the first time (a walk over the bytes) and the second (the tree).
    private func answers(_ body: String, _ expected: JSONValue) -> (walked: Bool, parsed: Bool) {
        var sent = URLRequest(url: testURL("https://h/items"))
        sent.httpMethod = "POST"
        sent.httpBody = Data(body.utf8)
        let request = RecordedRequest(sent)
        let matcher = RequestMatcher.jsonBody(containing: expected)
        return (matcher.matches(request), matcher.matches(request))
    }

    private func reference(_ body: String, _ expected: JSONValue) -> Bool {
        (try? JSONValue(parsing: Data(body.utf8)))?.contains(expected) == true
    }

    @Test(arguments: [
        (#"{"variant": 1, "records": [{"id": 1}, {"id": 2}]}"#, true),
        (#"{"records": [], "variant": 1.0}"#, true),  // numbers compare by value
        (#"{"variant": 2}"#, false),
        (#"{"other": 1}"#, false),
        (#"{"variant": 1, "variant": 2}"#, false),  // a repeated name counts by its last value
        (#"{"variant": 2, "variant": 1}"#, true),
        (#"{"variant": 1} trailing"#, false),  // not JSON
        (#"{"variant": 1, "broken": [}"#, false),
        (#"[{"variant": 1}]"#, false),
        (#"{"v\u0061riant": 1}"#, true),  // an escaped name is the same name
        ("", false),
    ])
    func aTopLevelMemberIsFoundWhateverSurroundsIt(body: String, contains: Bool) {
        let expected: JSONValue = .object(["variant": .integer(1)])
        #expect(answers(body, expected) == (contains, contains))
        #expect(reference(body, expected) == contains)
    }

    @Test func nestedObjectsAndArraysFollowTheTreesRules() {
        let expected: JSONValue = .object(["user": .object(["tags": .array([.string("a"), .object(["k": .bool(true)])])])])
        let cases = [
            (#"{"user": {"name": "Ada", "tags": ["a", {"k": true, "x": null}]}}"#, true),
            (#"{"user": {"tags": ["a", {"k": true}, "extra"]}}"#, false),  // arrays must have the same length
            (#"{"user": {"tags": ["a"]}}"#, false),
            (#"{"user": {"tags": {"0": "a"}}}"#, false),
            (#"{"user": "tags"}"#, false),
        ]
        for (body, contains) in cases {
            #expect(answers(body, expected) == (contains, contains), "\(body)")
            #expect(reference(body, expected) == contains, "\(body)")
        }
    }

    /// Random bodies (nesting, repeated names, escapes, spacing) and random expectations taken
    /// from them or made up: the walk, the tree and the reference always agree.
    @Test(arguments: 0..<20)
    func theWalkAndTheTreeAgreeOnRandomBodies(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var agreed = 0
        var contained = 0
        for _ in 0..<100 {
            let body = Self.randomJSON(depth: 3, &random)
            let expected =
                Bool.random(using: &random)
                ? ((try? JSONValue(parsing: Data(body.utf8))).map { Self.part(of: $0, &random) } ?? .null)
                : (try? JSONValue(parsing: Data(Self.randomJSON(depth: 2, &random).utf8))) ?? .null
            let truth = reference(body, expected)
            #expect(answers(body, expected) == (truth, truth), "seed \(seed): \(body) containing \(expected)")
            agreed += 1
            if truth { contained += 1 }
        }
        // Both answers must occur, or the comparison proves little.
        #expect(contained > 0 && contained < agreed, "seed \(seed): \(contained) of \(agreed) contained")
    }

    /// A value `value` contains: some of its members, recursively.
    private static func part(of value: JSONValue, _ random: inout SeededGenerator) -> JSONValue {
        switch value {
        case .object(let members):
            return .object(members.filter { _ in Bool.random(using: &random) }.mapValues { part(of: $0, &random) })
        case .array(let items):
            return .array(items.map { part(of: $0, &random) })
        default:
            return value
        }
    }

    private static func randomJSON(depth: Int, _ random: inout SeededGenerator) -> String {
        let space = [" ", "", "\n", "\t"].randomElement(using: &random) ?? ""
        let names = ["a", "b", "v", "a\\u0062"]
        switch Int.random(in: 0..<(depth > 0 ? 8 : 5), using: &random) {
        case 0: return "null"
        case 1: return Bool.random(using: &random) ? "true" : "false"
        case 2: return ["1", "1.0", "-2", "3e1", "30"].randomElement(using: &random) ?? "1"
        case 3: return ["\"x\"", "\"\\u00e9\"", "\"é\"", "\"a\\\"b\""].randomElement(using: &random) ?? "\"x\""
        case 4: return "\"\(Int.random(in: 0..<3, using: &random))\""
        case 5, 6:
            let members = (0..<Int.random(in: 0...4, using: &random)).map { _ in
                "\"\(names.randomElement(using: &random) ?? "a")\"\(space):\(space)\(randomJSON(depth: depth - 1, &random))"
            }
            return "{" + space + members.joined(separator: "," + space) + space + "}"
        default:
            let items = (0..<Int.random(in: 0...3, using: &random)).map { _ in randomJSON(depth: depth - 1, &random) }
            return "[" + items.joined(separator: "," + space) + "]"
        }
    }
}
