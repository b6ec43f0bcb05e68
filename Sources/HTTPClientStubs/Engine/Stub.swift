import Foundation
import HTTPClient

/// One registered stub: what it matches, what it answers (a sequence), and every call it took.
///
/// Configure it by chaining; each method returns the stub:
///
/// ```swift
/// let flaky = stubs.stub(.get, "/status").respond(.status(503), .status(503), .text("ok"))
/// stubs.stub(.post, "/login").respond(.status(204)).times(1)
/// ```
///
/// A sequence hands out one response per call; once it is exhausted the stub repeats the last
/// response (``Exhaustion/repeatLast``, the default) or stops matching
/// (``Exhaustion/stopMatching``), as you choose with ``whenExhausted(_:)``.
public final class Stub: Sendable, CustomStringConvertible {
    /// What a stub does after its last response in the sequence.
    public enum Exhaustion: Sendable {
        /// Keep answering with the last response (persistent stub).
        case repeatLast
        /// Stop matching, so later requests fall through to other stubs or the unmatched report.
        case stopMatching
    }

    private struct State {
        var matcher: RequestMatcher
        var responses: [MockResponse] = [MockResponse.status(200).keepingMadeResponse()]
        var served = 0
        var limit: Int?
        var exhaustion = Exhaustion.repeatLast
        var expectsUse = true
        var name: String?
        var calls: [RecordedRequest] = []
        /// The calls since they were last forgotten, those let go past the retention included.
        var callCount = 0
        var callsDropped = 0
        var callsCheckedAt = RequestRetention.firstCheck
        /// The bytes `calls` hold (see ``RecordedRequest/retainedBytes``).
        var callsBytes = 0
        var followsRedirects = true
        var priority = 0
        /// The scenario state it needs and the one it moves to: see ``inScenario(_:when:movingTo:)``.
        var scenario: ScenarioCondition?
        /// A transport's own answer (a `MockURLSession`'s): see ``ownedByTransport()``.
        var ownedByTransport = false
        var onRequest: [@Sendable (RecordedRequest) -> Void] = []
        var onDelivery: [@Sendable (RecordedRequest) -> Void] = []
        /// The registry's, to file the stub again when a condition is added.
        var conditionsChanged: (@Sendable (Stub) -> Void)?
        /// The registry it is registered in, whose other requests a wait that runs out lists.
        weak var registry: StubRegistry?
    }

    /// Registration order in its registry: later stubs win over earlier ones.
    package let id: Int
    /// Where the stub was declared, for reports.
    package let location: CallSite
    /// `METHOD path` for stubs the registry can look up without scanning.
    let indexKey: StubIndex.Key?
    /// How many of the matcher's first conditions the index key already guarantees (its
    /// method, and its path when the path is exact): routing skips them, reports show them.
    let conditionsDecidedByIndex: Int
    private let state: Locked<State>
    private let arrivals = Milestones()
    private let deliveries = Milestones()

    /// How many of its latest calls the stub keeps (its registry's ``StubRegistry/retainedRequests``).
    private let retention: RequestRetention
    /// Its registry's scenarios, which ``inScenario(_:when:movingTo:)`` may tie it to.
    let scenarios: ScenarioBook

    init(
        id: Int, matcher: RequestMatcher, indexKey: StubIndex.Key?, conditionsDecidedByIndex: Int = 0, location: CallSite,
        retention: RequestRetention, scenarios: ScenarioBook
    ) {
        self.retention = retention
        self.scenarios = scenarios
        self.id = id
        self.indexKey = indexKey
        self.conditionsDecidedByIndex = conditionsDecidedByIndex
        self.location = location
        state = Locked(State(matcher: matcher))
    }

    // MARK: Configuring

    /// Answers with `responses` in order, one per call.
    @discardableResult
    public func respond(_ responses: MockResponse...) -> Stub {
        respond(responses)
    }

    /// Answers with `responses` in order, one per call: for a source of stubs that builds the
    /// sequence (a cassette's recordings).
    @discardableResult
    package func respond(_ responses: [MockResponse]) -> Stub {
        state.withLock { state in
            // Kept: the last response answers every later call.
            state.responses =
                responses.isEmpty ? [MockResponse.status(200).keepingMadeResponse()] : responses.map { $0.keepingMadeResponse() }
            state.served = 0
        }
        return self
    }

    /// Adds a condition the request must also meet.
    @discardableResult
    public func matching(_ matcher: RequestMatcher) -> Stub {
        let changed = state.withLock { state in
            state.matcher = state.matcher && matcher
            return state.conditionsChanged
        }
        changed?(self)
        return self
    }

    /// Matches at most `count` requests, then stops matching.
    @discardableResult
    public func times(_ count: Int) -> Stub {
        state.withLock { $0.limit = max(0, count) }
        return self
    }

    /// Matches one request only.
    @discardableResult
    package func once() -> Stub {
        times(1)
    }

    /// What to do when the response sequence is used up.
    @discardableResult
    public func whenExhausted(_ exhaustion: Exhaustion) -> Stub {
        state.withLock { $0.exhaustion = exhaustion }
        return self
    }

    /// Opts this stub out of the every-stub-used check of ``StubRegistry/verify(fileID:filePath:line:column:)``.
    @discardableResult
    public func allowingUnused() -> Stub {
        state.withLock { $0.expectsUse = false }
        return self
    }

    /// Tries this stub before the stubs with a higher number and after those with a lower one;
    /// among stubs of the same priority the newest is tried first. 0 unless set. A
    /// `MockURLSession`'s own answers are stubs that come after every stub of yours: queued
    /// answers (1), then `nextData`/`nextResponse`/`nextError` (2).
    @discardableResult
    public func priority(_ priority: Int) -> Stub {
        let changed = state.withLock { state in
            state.priority = priority
            return state.conditionsChanged
        }
        changed?(self)
        return self
    }

    /// Ties the stub to a scenario (see ``inScenario(_:when:movingTo:)``).
    func setScenarioCondition(_ condition: ScenarioCondition) {
        state.withLock { $0.scenario = condition }
    }

    /// The stub's ``priority(_:)``.
    package var currentPriority: Int { state.withLock { $0.priority } }

    /// Marks the stub as a transport's own answer (a `MockURLSession`'s queued and `next...`
    /// answers), which belongs to the transport rather than to the test: it stays registered
    /// through ``StubRegistry/reset()`` (its calls and queue emptied), and reports list the test's
    /// stubs without it. Matching treats it as any stub.
    @discardableResult
    package func ownedByTransport() -> Stub {
        state.withLock { $0.ownedByTransport = true }
        return self
    }

    package var isOwnedByTransport: Bool { state.withLock { $0.ownedByTransport } }

    /// A name for reports and verification messages.
    @discardableResult
    public func named(_ name: String) -> Stub {
        state.withLock { $0.name = name }
        return self
    }

    /// Whether a 3xx answer with `Location` from this stub is followed, as `URLSession` follows
    /// it (the default), or delivered as the response.
    @discardableResult
    public func followingRedirects(_ follows: Bool) -> Stub {
        state.withLock { $0.followsRedirects = follows }
        return self
    }

    // MARK: Waiting for requests

    /// Calls `callback` with each request this stub answers, when it arrives (before the
    /// response is delivered), on the thread that sent it, and before ``waitForRequests(_:timeout:)``
    /// counts it.
    @discardableResult
    public func onRequest(_ callback: @escaping @Sendable (RecordedRequest) -> Void) -> Stub {
        state.withLock { $0.onRequest.append(callback) }
        return self
    }

    /// Calls `callback` with each request once its response (or error) has been handed to the
    /// code under test: after the completion handler returned, or the URLProtocol client got the
    /// whole response; and before ``waitForDeliveries(_:timeout:)`` counts it, so a test that
    /// waits for the delivery sees what `callback` did. Fulfil an `XCTestExpectation` here.
    @discardableResult
    public func onDelivery(_ callback: @escaping @Sendable (RecordedRequest) -> Void) -> Stub {
        state.withLock { $0.onDelivery.append(callback) }
        return self
    }

    /// Returns once this stub has answered `count` requests in all (their responses may still be
    /// on their way).
    ///
    /// Throws ``StubWaitError`` after `timeout`, 10 seconds by default (see ``StubWaitError``
    /// for why, and for heavily parallel runs), listing the requests this stub answered and the
    /// others its registry saw, with what answered each.
    public func waitForRequests(_ count: Int = 1, timeout: Duration = .seconds(10)) async throws {
        try await arrivals.wait(until: count, timeout: timeout, waitingFor: "requests to \(self)") { [self] in
            observedRequests(delivered: nil)
        }
    }

    /// Returns once `count` of this stub's responses have been delivered in all (see
    /// ``onDelivery(_:)``).
    ///
    /// Throws ``StubWaitError`` after `timeout`, 10 seconds by default (see ``StubWaitError``),
    /// saying how many requests arrived and listing them, and the others its registry saw.
    public func waitForDeliveries(_ count: Int = 1, timeout: Duration = .seconds(10)) async throws {
        try await deliveries.wait(until: count, timeout: timeout, waitingFor: "responses of \(self) delivered") { [self] in
            observedRequests(delivered: deliveries.count)
        }
    }

    /// What a wait that ran out saw: this stub's calls, then the registry's other requests.
    private func observedRequests(delivered: Int?) -> [String] {
        let (calls, callCount, registry) = state.withLock { ($0.calls, $0.callCount, $0.registry) }
        let redaction = registry?.redaction ?? .standard
        var lines: [String] = []
        if let delivered, callCount > delivered {
            lines.append(
                "\(callCount) arrived and \(callCount - delivered) of their responses are not delivered yet "
                    + "(held, delayed, or their tasks not resumed).")
        }
        if !calls.isEmpty {
            lines.append("It answered:")
            lines += calls.suffix(Self.listedRequests).map { "  " + $0.redactedLine(redaction) }
        }
        let answered = Set(calls.map(\.sequenceNumber))
        lines += registry?.requestsElsewhere(excluding: answered, limit: Self.listedRequests) ?? []
        return lines
    }

    /// How many requests a wait that runs out lists at most, of each kind (the latest).
    static let listedRequests = 10

    // MARK: Inspecting

    /// Whether a redirect this stub answers is followed (see ``followingRedirects(_:)``).
    package var followsRedirects: Bool { state.withLock { $0.followsRedirects } }

    /// What the stub matches.
    package var matcher: RequestMatcher { state.withLock { $0.matcher } }

    /// Every request this stub answered, in order, with path parameters and body: the latest
    /// ``StubRegistry/retainedRequests`` of them.
    public var calls: [RecordedRequest] { state.withLock { $0.calls } }

    /// How many requests this stub answered, those no longer in ``calls`` included.
    package var callCount: Int { state.withLock { $0.callCount } }

    /// Whether the stub no longer matches (its `times` limit is reached, or its sequence ran
    /// out with ``Exhaustion/stopMatching``).
    package var isExhausted: Bool { state.withLock { Self.isExhausted($0) } }

    /// Whether the stub's scenario is in the state it needs, or it has none (it would answer now,
    /// unless it is exhausted).
    package var scenarioAdmits: Bool {
        guard let condition = state.withLock({ $0.scenario }) else { return true }
        return scenarios.admits(condition)
    }

    /// Why the stub, which matches a request, did not answer it because of its scenario, with its
    /// registry's scenarios in `states`; `nil` when its scenario is not the reason.
    func scenarioMiss(in states: [String: Scenario.State]) -> String? {
        state.withLock { $0.scenario }?.miss(in: states)
    }

    /// Whether ``allowingUnused()`` was not called.
    package var expectsUse: Bool { state.withLock { $0.expectsUse } }

    /// The name, or what the stub matches.
    public var description: String {
        state.withLock { $0.name ?? $0.matcher.description }
    }

    // MARK: Engine

    /// Matches `request` against `matcher` (the stub's conditions, as its registry filed them;
    /// its own by default) and, when it matches, takes the next response and records the call
    /// (with the path parameters and the answer's source the match captured); `nil` when the
    /// stub does not match, is exhausted, or its scenario is in another state (`reading` keeps
    /// what the request saw of the scenarios). `recorded`, when given, is the call recorded in
    /// place of `request` (a HEAD a server answers with the stub of its GET).
    func claimIfMatching(
        _ request: RecordedRequest, using matcher: RequestMatcher? = nil, recordingAs recorded: RecordedRequest? = nil,
        reading: inout ScenarioReading
    ) -> (MockResponse, RecordedRequest)? {
        guard let captures = (matcher ?? self.matcher).captures(matching: request) else { return nil }
        var matched = recorded ?? request
        matched.pathParameters = captures.pathParameters
        matched.answerSource = captures.source
        return claim(matched, reading: &reading)
    }

    /// The response the next call gets, without taking it; nil when the stub is exhausted.
    var upcomingResponse: MockResponse? {
        state.withLock { state in
            Self.isExhausted(state) ? nil : state.responses[min(state.served, state.responses.count - 1)]
        }
    }

    /// Takes the next response for `request` and records the call, with where the answer comes
    /// from, and moves the stub's scenario in the same step; `nil` if the stub is exhausted
    /// (another thread may have taken the last call since matching) or its scenario is in
    /// another state.
    private func claim(_ request: RecordedRequest, reading: inout ScenarioReading) -> (MockResponse, RecordedRequest)? {
        // Filled inside the lock and returned apart: a tuple of the three, made and taken
        // apart per request, cost more than the claim's own work.
        var answered = request
        var callbacks: [@Sendable (RecordedRequest) -> Void] = []
        let claimed = state.withLock { state -> MockResponse? in
            guard !Self.isExhausted(state) else { return nil }
            // Under this stub's lock, the check, the move and the claim are one step: no other
            // request takes this stub in between, and any that looks after the move sees it.
            if let condition = state.scenario, !scenarios.enter(condition, reading: &reading) { return nil }
            let response = state.responses[min(state.served, state.responses.count - 1)]
            state.served += 1
            answered.answerSource = request.answerSource ?? response.source ?? .stub
            state.calls.append(answered)
            state.callCount += 1
            state.callsBytes += answered.retainedBytes
            if state.calls.count >= state.callsCheckedAt || answered.retainedBytes >= RequestRetention.largeRequest {
                retention.trim(
                    &state.calls, counting: &state.callsDropped, checkNextAt: &state.callsCheckedAt,
                    bytes: &state.callsBytes, size: \.retainedBytes)
            }
            callbacks = state.onRequest
            return response
        }
        guard let response = claimed else { return nil }
        // The callbacks before the count: a test whose wait the count ends sees what they did.
        for callback in callbacks { callback(answered) }
        arrivals.advance()
        return (response, answered)
    }

    /// Called by a transport once the response to `request` has been handed over.
    package func noteDelivered(_ request: RecordedRequest) {
        let callbacks = state.withLock { $0.onDelivery }
        // The callbacks before the count: a test whose wait the count ends sees what they did.
        for callback in callbacks { callback(request) }
        deliveries.advance()
    }

    /// Calls `handler` after every ``matching(_:)``, outside the stub's lock.
    func whenConditionsChange(_ handler: @escaping @Sendable (Stub) -> Void) {
        state.withLock { $0.conditionsChanged = handler }
    }

    /// Notes the registry the stub belongs to (kept weakly).
    func registered(in registry: StubRegistry) {
        state.withLock { $0.registry = registry }
    }

    // MARK: Queues (a MockURLSession's enqueued answers)

    /// Appends to the sequence of a stub that stops matching when exhausted: each answer is
    /// served once, in order.
    package func enqueue(_ responses: [MockResponse]) {
        state.withLock { state in
            if state.exhaustion != .stopMatching {
                // The first call turns the stub into a queue, dropping the default response.
                state.exhaustion = .stopMatching
                state.responses = []
                state.served = 0
            }
            state.responses.append(contentsOf: responses)
        }
    }

    /// Answers appended with ``enqueue(_:)`` that no request has taken yet.
    package var queuedCount: Int {
        state.withLock { max(0, $0.responses.count - $0.served) }
    }

    /// Empties the sequence (so a queue stub stops matching) and forgets the calls.
    package func forgetCallsAndQueue() {
        state.withLock { state in
            if state.exhaustion == .stopMatching {
                state.responses = []
                state.served = 0
            }
            state.calls = []
            state.callCount = 0
            state.callsCheckedAt = RequestRetention.firstCheck
            state.callsBytes = 0
        }
    }

    private static func isExhausted(_ state: State) -> Bool {
        if let limit = state.limit, state.callCount >= limit { return true }
        return state.exhaustion == .stopMatching && state.served >= state.responses.count
    }
}
