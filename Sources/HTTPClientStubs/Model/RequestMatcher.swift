import Foundation
import HTTPClient

/// A condition on a request that says *why* it fails, so unmatched-request reports can explain.
///
/// Combine with `&&`, `||` and `!`:
///
/// ```swift
/// stubs.stub(.post, "/users").matching(.jsonBody(containing: ["name": "Ada"]) && .header("Authorization"))
/// ```
public struct RequestMatcher: Sendable, CustomStringConvertible {
    /// The outcome of one leaf condition.
    enum Check: Sendable {
        case pass(Captures)
        /// `nearness` (0...1) ranks near misses: how close the failed value was.
        case fail(reason: String, nearness: Double = 0)

        static let pass = Check.pass(Captures())
    }

    /// What passing conditions hand to the request they matched.
    package struct Captures: Sendable {
        /// From path templates such as `/users/{id}`.
        var pathParameters: [String: String] = [:]
        /// Where the answer will come from, when a condition found it (a source of stubs that
        /// looks the answer up while matching, such as a folder of files).
        var source: AnswerSource?

        mutating func merge(_ other: Captures) {
            pathParameters.merge(other.pathParameters) { _, new in new }
            if let source = other.source { self.source = source }
        }
    }

    /// One leaf condition, defined once. It has two ways to be asked: `test` routes requests (a
    /// yes or no, with captures, and no text: most candidates a registry tries are rejected, and
    /// formatting a reason for each cost more than the rest of the match), and `explain` says
    /// why, for reports only. Both are made here from one definition, so they cannot disagree.
    struct Condition: Sendable {
        let description: String
        /// A value the condition cannot pass without, which a registry files the stub under
        /// (see ``RequiredValue``).
        let requires: RequiredValue?
        let test: @Sendable (RecordedRequest) -> Captures?
        let explain: @Sendable (RecordedRequest) -> Check

        /// The one way to define a condition: `read` takes from the request what the condition
        /// looks at; `verdict` decides on that value alone (`nil` for a miss, captures for a
        /// pass), and `reason` and `nearness` describe a value that missed. The report and the
        /// routing read the request the same way, and the report's verdict is the routing's.
        init<Value>(
            _ description: String, read: @escaping @Sendable (RecordedRequest) -> Value,
            verdict: @escaping @Sendable (Value) -> Captures?, reason: @escaping @Sendable (Value) -> String,
            nearness: @escaping @Sendable (Value) -> Double = { _ in 0 }, requires: RequiredValue? = nil
        ) {
            self.description = description
            self.requires = requires
            test = { verdict(read($0)) }
            explain = { request in
                let value = read(request)
                if let captures = verdict(value) { return .pass(captures) }
                return .fail(reason: reason(value), nearness: nearness(value))
            }
        }

        /// A condition that captures nothing: `accepts` decides on what `read` took.
        init<Value>(
            _ description: String, read: @escaping @Sendable (RecordedRequest) -> Value,
            accepts: @escaping @Sendable (Value) -> Bool, reason: @escaping @Sendable (Value) -> String,
            requires: RequiredValue? = nil
        ) {
            self.init(description, read: read, verdict: { accepts($0) ? Captures() : nil }, reason: reason, requires: requires)
        }
    }

    indirect enum Node: Sendable {
        case condition(Condition)
        case all([Node])
        case any([Node])
        case not(Node)
    }

    let node: Node

    init(_ node: Node) {
        self.node = node
    }

    init(_ condition: Condition) {
        node = .condition(condition)
    }

    /// A leaf condition. `evaluate` returns `nil` when the request passes, or the reason it fails.
    package init(_ description: String, reason evaluate: @escaping @Sendable (RecordedRequest) -> String?) {
        self.init(Condition(description, read: evaluate, accepts: { $0 == nil }, reason: { $0 ?? "" }))
    }

    /// A leaf with captures, whose test is its check without the reason.
    init(_ description: String, check: @escaping @Sendable (RecordedRequest) -> Check) {
        self.init(
            Condition(
                description, read: check,
                verdict: { check in
                    if case .pass(let captures) = check { return captures }
                    return nil
                },
                reason: { check in
                    if case .fail(let reason, _) = check { return reason }
                    return ""
                },
                nearness: { check in
                    if case .fail(_, let nearness) = check { return nearness }
                    return 0
                }))
    }

    /// The values every request this matcher accepts must carry (a header's value, a query
    /// item's): one from each condition of a conjunction that has one; none under `||` or `!`.
    var requiredValues: [RequiredValue] { Self.requiredValues(node) }

    private static func requiredValues(_ node: Node) -> [RequiredValue] {
        switch node {
        case .condition(let condition): condition.requires.map { [$0] } ?? []
        case .all(let nodes): nodes.flatMap(requiredValues)
        case .any, .not: []
        }
    }

    /// What the matcher requires, such as `method GET && path /users/{id}`.
    public var description: String { Self.describe(node) }

    private static func describe(_ node: Node) -> String {
        switch node {
        case .condition(let condition): condition.description
        case .all(let nodes): nodes.isEmpty ? "any request" : nodes.map(describe).joined(separator: " && ")
        case .any(let nodes): "(" + nodes.map(describe).joined(separator: " || ") + ")"
        case .not(let node): "!(\(describe(node)))"
        }
    }

    // MARK: Evaluating

    /// The result of testing a request: whether it matched, the captures, and for a miss
    /// every failed condition and how many conditions passed (to rank near misses).
    package struct Evaluation: Sendable {
        /// Whether every condition passed.
        package var matched: Bool
        /// The path parameters of a match.
        package var captures: [String: String]
        /// Why each failed condition failed, for a miss.
        package var failures: [String]
        /// How many conditions passed.
        package var passedConditions: Int
        /// How many conditions there are.
        package var totalConditions: Int
        /// Partial credit of the failed conditions (a path that differs only at the end is nearer).
        var nearness: Double = 0

        /// Share of conditions that passed, with partial credit for near misses, 0...1.
        package var closeness: Double {
            totalConditions == 0 ? 1 : (Double(passedConditions) + nearness) / Double(totalConditions)
        }
    }

    /// Tests `request`, explaining every failed condition (for reports).
    package func evaluate(_ request: RecordedRequest) -> Evaluation {
        Self.evaluate(node, request)
    }

    /// Whether `request` matches. Stops at the first failed condition.
    public func matches(_ request: RecordedRequest) -> Bool {
        Self.quickMatch(node, request) != nil
    }

    /// The path parameters `request` yields when it matches, `nil` when it does not.
    package func captures(matching request: RecordedRequest) -> Captures? {
        Self.quickMatch(node, request)
    }

    private static func quickMatch(_ node: Node, _ request: RecordedRequest) -> Captures? {
        switch node {
        case .condition(let condition):
            return condition.test(request)
        case .all(let nodes):
            var captures = Captures()
            for node in nodes {
                guard let found = quickMatch(node, request) else { return nil }
                // Most conditions capture nothing: merging nothing still costs dictionary work.
                if !found.pathParameters.isEmpty || found.source != nil { captures.merge(found) }
            }
            return captures
        case .any(let nodes):
            for node in nodes { if let found = quickMatch(node, request) { return found } }
            return nil
        case .not(let node):
            return quickMatch(node, request) == nil ? Captures() : nil
        }
    }

    private static func evaluate(_ node: Node, _ request: RecordedRequest) -> Evaluation {
        switch node {
        case .condition(let condition):
            switch condition.explain(request) {
            case .pass(let captures):
                return Evaluation(
                    matched: true, captures: captures.pathParameters, failures: [], passedConditions: 1, totalConditions: 1)
            case .fail(let reason, let nearness):
                return Evaluation(
                    matched: false, captures: [:], failures: [reason], passedConditions: 0, totalConditions: 1,
                    nearness: nearness)
            }
        case .all(let nodes):
            var total = Evaluation(matched: true, captures: [:], failures: [], passedConditions: 0, totalConditions: 0)
            for part in nodes.map({ evaluate($0, request) }) {
                total.matched = total.matched && part.matched
                total.captures.merge(part.captures) { _, new in new }
                total.failures += part.failures
                total.passedConditions += part.passedConditions
                total.totalConditions += part.totalConditions
                total.nearness += part.nearness
            }
            return total
        case .any(let nodes):
            let parts = nodes.map { evaluate($0, request) }
            if let hit = parts.first(where: \.matched) { return hit }
            let best = parts.max { $0.closeness < $1.closeness }
            return Evaluation(
                matched: false, captures: [:],
                failures: ["none of: " + parts.flatMap(\.failures).joined(separator: "; ")],
                passedConditions: best?.passedConditions ?? 0, totalConditions: max(best?.totalConditions ?? 1, 1))
        case .not(let inner):
            let part = evaluate(inner, request)
            return part.matched
                ? Evaluation(
                    matched: false, captures: [:], failures: ["request matched !(\(describe(inner)))"],
                    passedConditions: 0, totalConditions: 1)
                : Evaluation(matched: true, captures: [:], failures: [], passedConditions: 1, totalConditions: 1)
        }
    }

    // MARK: Combining

    /// Both must match.
    public static func && (lhs: RequestMatcher, rhs: RequestMatcher) -> RequestMatcher {
        RequestMatcher(.all(lhs.flattenedAll + rhs.flattenedAll))
    }

    /// Either must match.
    public static func || (lhs: RequestMatcher, rhs: RequestMatcher) -> RequestMatcher {
        RequestMatcher(.any([lhs.node, rhs.node]))
    }

    /// Must not match.
    public static prefix func ! (matcher: RequestMatcher) -> RequestMatcher {
        RequestMatcher(.not(matcher.node))
    }

    /// This matcher without its first `count` conditions: what is left to test once an index
    /// has already decided those (a bucket for `GET /items` needs no method or path test).
    func droppingLeadingConditions(_ count: Int) -> RequestMatcher {
        guard count > 0 else { return self }
        let rest = Array(flattenedAll.dropFirst(count))
        return rest.count == 1 ? RequestMatcher(rest[0]) : RequestMatcher(.all(rest))
    }

    private var flattenedAll: [Node] {
        if case .all(let nodes) = node { return nodes }
        return [node]
    }

    /// Matches every request.
    public static let any = RequestMatcher(.all([]))
}
