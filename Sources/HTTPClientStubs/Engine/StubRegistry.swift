import Foundation
import HTTPClient

/// The stub engine: a registry of stubs that matches requests, produces responses, records
/// every call, and verifies. Transports (``MockURLSession``, `StubURLProtocol`, fixture
/// folders and cassettes) all answer through one.
///
/// Every registry is an instance: create one per test and parallel tests never share stubs.
///
/// ```swift
/// let stubs = StubRegistry()
/// stubs.stub(.get, "/users/{id}").respond(try .json(user))
/// let client = HTTPClient(session: MockURLSession(stubs: stubs))
/// ```
///
/// Unmatched requests are strict: they never reach the network; the caller receives an
/// ``UnmatchedRequestError`` and the running test fails with a report that explains the miss.
public final class StubRegistry: Sendable {
    /// What the engine decided for a request. Engine machinery: for the benchmarks and the
    /// engine's own tests (`@_spi(Engine) import HTTPClientStubs`), not for users.
    @_spi(Engine) public enum Resolution: Sendable {
        /// Answer with `response` (already resolved for the request), from `stub`.
        case respond(MockResponse, request: RecordedRequest, stub: Stub)
        /// Let the request through to the real network (its host is a pass-through host).
        case passthrough(URLRequest)
        /// No stub matched; deliver the error.
        case unmatched(UnmatchedRequestError)
        /// The request cannot be answered at all (its body stream failed); deliver the error.
        case failed(any Error)
    }

    private struct State {
        var nextID = 0
        var stubs: [Stub] = []
        /// Where `stubs` are filed, so a request is tried only against those that could match.
        var index = StubIndex()
        var requests: [RecordedRequest] = []
        /// How many of the oldest requests the log let go since it was last emptied (past
        /// ``retainedRequests``): a request's place in the log counts them.
        var requestsDropped = 0
        /// The log's length at which the retention is looked at next (see ``RequestRetention``).
        var requestsCheckedAt = RequestRetention.firstCheck
        /// The bytes `requests` hold (see ``RecordedRequest/retainedBytes``).
        var requestsBytes = 0
        /// How many requests the registry has seen, emptied logs included: the next one's
        /// ``RecordedRequest/sequenceNumber``, so arrival order holds across a forgotten log.
        var requestsSeen = 0
        /// Counts the times `requests` was emptied: a request's place in the log (``LogSlot``)
        /// holds only while it is the same.
        var logGeneration = 0
        var unmatched: [UnmatchedRequestReport] = []
        /// Unmatched reports let go past the retention, and the bytes of the requests kept.
        var unmatchedDropped = 0
        var unmatchedBytes = 0
        /// The stubs of a priority other than 0, lowest priority first, newest first within one
        /// (those of priority 0 are in `index`).
        var prioritized: [Stub] = []
        /// Every gate a response of this registry was held by, for verification.
        var holds: [HeldResponse] = []
        /// Unmatched requests that satisfy one of these go to the real network.
        var passthrough: [RequestMatcher] = []
        /// What answers a request nothing else answers, instead of the unmatched failure.
        var unmatchedAnswer: Stub?
    }

    /// The name reports use: given, or the Swift Testing test that created the registry, or
    /// where it was created.
    package let name: String
    /// Where the registry was created; unmatched requests are reported here.
    package let location: CallSite
    /// What reports hide: the request's credentials, in its URL, headers and body, and the
    /// values the rules hide wherever else they appear in the report.
    package let redaction: Redaction
    let reporting: FailureReporting
    let createdInSwiftTesting: Bool
    private let state = Locked(State())
    /// Shared with the stubs, which keep their calls to the same bound.
    private let retention = RequestRetention()
    /// The states of the registry's scenarios (``scenario(_:)``), shared with its stubs, which
    /// check and move them as they answer.
    let scenarios = ScenarioBook()
    /// The answers given, kept while a test that attaches its traffic on failure owns the registry.
    package let answers = AnswerLog()

    /// How many of the latest requests the log (``requests``), each stub's ``Stub/calls`` and
    /// the unmatched reports keep: 10,000 unless set. Older ones are let go, so a registry behind a
    /// server under load holds a bounded log however long it runs; counts stay exact (a stub's
    /// call count, its `times` limit, verification by count, each request's sequence number).
    /// Verification of order looks at the calls kept.
    public var retainedRequests: Int {
        get { retention.limit }
        set { retention.limit = newValue }
    }

    /// The bytes of requests each of those logs keeps at most, however few requests that is:
    /// their bodies, and the heads a server read (URL and header lines). A request larger than
    /// this alone is not kept at all (it is counted). No limit unless set. `httpc serve` keeps
    /// 4 MiB, so that uploads of megabytes and heads of tens of kilobytes do not pile up in a
    /// server that runs for hours.
    package var retainedRequestBytes: Int {
        get { retention.bytes }
        set { retention.bytes = newValue }
    }

    /// Creates an empty registry.
    ///
    /// - Parameters:
    ///   - name: A name for reports; by default the current Swift Testing test's name, or the
    ///     file and line of this call.
    ///   - passthroughHosts: Hosts (such as `127.0.0.1`) whose *unmatched* requests go to the
    ///     network instead of failing: `passThrough(.host(...))` for each.
    ///   - reporting: Where failures go; ``FailureReporting/automatic`` reports to the running
    ///     Swift Testing or XCTest test.
    ///   - redaction: What reports and failure messages hide; `Redaction.standard` by default.
    ///   - fileID: Where this is called (with `filePath`, `line` and `column`): failures the
    ///     registry reports point here. Leave the defaults.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    public init(
        _ name: String? = nil,
        passthroughHosts: Set<String> = [],
        reporting: FailureReporting = .automatic,
        redaction: Redaction = .standard,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        location = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let testName = FailureReporting.currentTestName
        createdInSwiftTesting = testName != nil
        self.name = name ?? testName ?? "StubRegistry at \(location)"
        state.withLock { $0.passthrough = passthroughHosts.sorted().map { RequestMatcher.host($0) } }
        self.reporting = reporting
        self.redaction = redaction
    }

    /// The registry of the running test, when the `.stubs` trait of `HTTPClientMocks` gave it
    /// one: set for the test's task and every task it creates, so code under test that builds
    /// its session deep inside reaches it (`MockURLSession(stubs: .current)`,
    /// `StubRegistry.current?.makeURLSession()`).
    @TaskLocal public static var current: StubRegistry?

    // MARK: Registering

    /// Stubs requests with `method` to `target`: a path (`"/users/1"`), a path template
    /// (`"/users/{id}"`), a full URL (`"https://api.example.com/users?page=2"`, which also fixes
    /// scheme, host and the exact query), or a prefix (`.prefix("/v2")`).
    @discardableResult
    public func stub(
        _ method: HTTPMethod, _ target: StubTarget,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> Stub {
        register(method, target, site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Stubs requests that satisfy `matcher`, whatever their method and path unless it says:
    /// `stub(where: .path("/health"))` answers every method, `stub(where: .header("X-Debug"))`
    /// every request with that header.
    @discardableResult
    public func stub(
        where matcher: RequestMatcher,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> Stub {
        register(matcher, site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Method, path and further conditions; filed under the route the index finds for them.
    private func register(_ method: HTTPMethod?, _ target: StubTarget, site: CallSite) -> Stub {
        let all = (method.map { [RequestMatcher.method($0)] } ?? []) + [.path(pattern: target.path)] + target.otherConditions
        let matcher = all.dropFirst().reduce(all[0], &&)
        return register(matcher, placement: { $0.placement(of: method, target) }, site: site)
    }

    /// `placement`: where the index files the stub; a stub of `stub(where:)` is scanned.
    private func register(
        _ matcher: RequestMatcher, placement: (inout StubIndex) -> (key: StubIndex.Key?, conditionsDecided: Int) = { _ in (nil, 0) },
        site: CallSite
    ) -> Stub {
        state.withLock { state in
            let (key, decided) = placement(&state.index)
            let stub = Stub(
                id: state.nextID, matcher: matcher, indexKey: key, conditionsDecidedByIndex: decided, location: site, retention: retention,
                scenarios: scenarios)
            state.nextID += 1
            state.stubs.append(stub)
            state.index.insert(stub)
            // A condition added later (`matching(.header(...))`) may file it under a value.
            stub.whenConditionsChange { [weak self] stub in self?.refile(stub) }
            stub.registered(in: self)
            return stub
        }
    }

    /// Lets requests that satisfy `matcher` and match no stub through to the real network
    /// (a loopback server, an image CDN): `.host("127.0.0.1")`, `.url("https://cdn.example/a.png",
    /// ignoringQuery: true)`, `.path(.prefix("/assets"))`, or any combination.
    public func passThrough(_ matcher: RequestMatcher) {
        state.withLock { $0.passthrough.append(matcher) }
    }

    /// Ends every ``passThrough(_:)``: unmatched requests fail again.
    public func stopPassingThrough() {
        state.withLock { $0.passthrough.removeAll() }
    }

    /// Removes one stub; requests already answered by it stay recorded.
    public func remove(_ stub: Stub) {
        state.withLock { state in
            state.stubs.removeAll { $0 === stub }
            state.index.remove(stub)
            state.prioritized.removeAll { $0 === stub }
        }
    }

    /// Files `stub` again after its conditions or its priority changed, if it is still registered.
    private func refile(_ stub: Stub) {
        let priority = stub.currentPriority
        state.withLock { state in
            guard state.stubs.contains(where: { $0 === stub }) else { return }
            state.index.remove(stub)
            state.prioritized.removeAll { $0 === stub }
            if priority == 0 {
                state.index.insert(stub)
            } else {
                // Lowest priority first; newest first within a priority.
                let place = state.prioritized.firstIndex {
                    let other = $0.currentPriority
                    return other > priority || (other == priority && $0.id < stub.id)
                }
                state.prioritized.insert(stub, at: place ?? state.prioritized.endIndex)
            }
        }
    }

    /// Removes every stub, forgets recorded requests and unmatched reports, and puts every
    /// scenario back in ``Scenario/State/started`` (as ``resetScenarios()``). The answers of a
    /// `MockURLSession` over this registry stay in place, emptied (no queued answers, no calls).
    public func reset() {
        let kept = state.withLock { state in
            let kept = state.stubs.filter(\.isOwnedByTransport)
            var index = state.index.emptied
            for stub in kept where stub.currentPriority == 0 { index.insert(stub) }
            state = State(
                nextID: state.nextID, stubs: kept, index: index, requestsSeen: state.requestsSeen,
                logGeneration: state.logGeneration + 1, prioritized: state.prioritized.filter(\.isOwnedByTransport),
                passthrough: state.passthrough, unmatchedAnswer: state.unmatchedAnswer)
            return kept
        }
        for stub in kept { stub.forgetCallsAndQueue() }
        answers.forget()
        scenarios.resetAll()
    }

    /// Forgets recorded requests and unmatched reports; stubs and their calls stay.
    package func forgetRequests() {
        state.withLock { state in
            state.requests.removeAll()
            state.requestsDropped = 0
            state.requestsCheckedAt = RequestRetention.firstCheck
            state.requestsBytes = 0
            state.logGeneration += 1
            state.unmatched.removeAll()
            state.unmatchedDropped = 0
            state.unmatchedBytes = 0
        }
    }

    /// Answers every request nothing else answers (no stub, no pass-through rule) with
    /// `response`, instead of failing it as unmatched: a `MockURLSession` made without a registry
    /// answers 200 so. The stub that answers is returned, to verify it; it is not listed with the
    /// test's stubs.
    package func answerUnmatched(with response: MockResponse, declaredAt site: CallSite) -> Stub {
        state.withLock { state in
            let stub = Stub(id: state.nextID, matcher: .any, indexKey: nil, location: site, retention: retention, scenarios: scenarios)
                .respond(response)
                .ownedByTransport().allowingUnused()
            state.nextID += 1
            state.unmatchedAnswer = stub
            return stub
        }
    }

    /// Registers a stub of `matcher`, declared at `site`: for a transport's own answers (a
    /// `MockURLSession`'s), which are stubs like any other.
    package func stub(_ matcher: RequestMatcher, declaredAt site: CallSite) -> Stub {
        register(matcher, site: site)
    }

    /// Remembers a gate that held one of this registry's responses.
    package func noteHold(_ hold: HeldResponse) {
        state.withLock { state in
            if !state.holds.contains(where: { $0 === hold }) { state.holds.append(hold) }
        }
    }

    // MARK: Inspecting

    /// The requests still waiting on a ``HeldResponse``.
    package var heldRequests: [(hold: HeldResponse, request: RecordedRequest)] {
        state.withLock { $0.holds }.flatMap { hold in hold.heldRequests.map { (hold, $0) } }
    }

    /// The test's stubs, oldest first (a `MockURLSession`'s own answers are its
    /// `queuedAnswers` and `cannedAnswers`, not listed here).
    package var stubs: [Stub] { state.withLock { $0.stubs }.filter { !$0.isOwnedByTransport } }

    /// Every request the registry saw (matched or not), in arrival order.
    public var requests: [RecordedRequest] { state.withLock { $0.requests } }

    /// The report of every request that matched no stub: of the latest, as the log keeps them
    /// (``retainedRequests``).
    public var unmatchedRequests: [UnmatchedRequestReport] { state.withLock { $0.unmatched } }

    /// How many requests matched no stub, those whose reports were let go included.
    var unmatchedCount: Int { state.withLock { $0.unmatchedDropped + $0.unmatched.count } }

    /// Stubs that were never used and did not opt out with ``Stub/allowingUnused()``.
    package var unusedStubs: [Stub] { stubs.filter { $0.expectsUse && $0.callCount == 0 } }

    // MARK: Resolving

    /// Decides the answer to `request`: tries each source of answers in ``AnswerOrder`` and
    /// takes the first answer, or reports the miss. This is the one entry point every transport
    /// uses (through the exchange).
    ///
    /// - Parameters:
    ///   - urlRequest: The request as the transport received it.
    ///   - reportingMisses: `false` for a caller that handles misses itself: the miss is then
    ///     neither reported nor kept.
    ///   - bodyIsHidden: The transport knows a body was sent but could not see it.
    ///   - answersHeadAsGet: A HEAD that no stub matches is answered by the stub that would
    ///     answer it as a GET (a server's rule); that stub records the HEAD as one of its calls.
    ///   - passesUnmatchedThrough: A request no stub answers is let through, as if a pass-through
    ///     rule took every request (a server with an upstream).
    ///   - headBytes: The size of the head a server read for it, counted with its body against
    ///     ``retainedRequestBytes``.
    @_spi(Engine) public func resolve(
        _ urlRequest: URLRequest, reportingMisses: Bool = true, bodyIsHidden: Bool = false, answersHeadAsGet: Bool = false,
        passesUnmatchedThrough: Bool = false, headBytes: Int = 0
    ) -> Resolution {
        let (resolution, sequenceNumber) = decide(
            urlRequest, reportingMisses: reportingMisses, bodyIsHidden: bodyIsHidden, answersHeadAsGet: answersHeadAsGet,
            passesUnmatchedThrough: passesUnmatchedThrough, headBytes: headBytes)
        answers.note(resolution, for: sequenceNumber, limit: retention.limit)
        return resolution
    }

    /// ``resolve(_:reportingMisses:bodyIsHidden:answersHeadAsGet:passesUnmatchedThrough:)``'s
    /// decision, and the sequence number it gave the request.
    private func decide(
        _ urlRequest: URLRequest, reportingMisses: Bool, bodyIsHidden: Bool, answersHeadAsGet: Bool, passesUnmatchedThrough: Bool,
        headBytes: Int
    ) -> (Resolution, sequenceNumber: Int) {
        var request = RecordedRequest(urlRequest, bodyIsHidden: bodyIsHidden, headBytes: headBytes)
        // One lock for all the request needs of the registry: its place in the log, and every
        // stub and rule that may answer it, as they stand at its arrival.
        let (slot, candidates, prioritized, passthrough, unmatchedAnswer) = state.withLock { state in
            request.sequenceNumber = state.requestsSeen
            state.requestsSeen += 1
            state.requests.append(request)
            state.requestsBytes += request.retainedBytes
            if state.requests.count >= state.requestsCheckedAt || request.retainedBytes >= RequestRetention.largeRequest {
                retention.trim(
                    &state.requests, counting: &state.requestsDropped, checkNextAt: &state.requestsCheckedAt,
                    bytes: &state.requestsBytes, size: \.retainedBytes)
            }
            let slot = LogSlot(generation: state.logGeneration, index: state.requestsDropped + state.requests.count - 1)
            return (slot, state.index.candidates(for: request), state.prioritized, state.passthrough, state.unmatchedAnswer)
        }
        if let error = request.bodyStreamError { return (.failed(error), request.sequenceNumber) }
        // Stubs by priority (those of priority 0 found through the index), newest first within
        // one; then a HEAD as its GET, where asked; then the pass-through rules; then unmatched.
        // Tried again from the first stub when a scenario moved while they were tried (see
        // ``ScenarioReading``): the answer is the one the states of one moment give.
        let before = prioritized.prefix { $0.currentPriority < 0 }
        var reading = ScenarioReading()
        while true {
            if let (stub, response, matched) = Self.claimFirstMatch(request, in: before, reading: &reading)
                ?? claimNewestMatch(request, among: candidates, reading: &reading)
                ?? Self.claimFirstMatch(request, in: prioritized.dropFirst(before.count), reading: &reading)
                ?? (answersHeadAsGet && request.method == .head ? claimAsGet(request, reading: &reading) : nil)
            {
                noteAnswered(matched, at: slot)
                return (.respond(response.resolved(for: matched), request: matched, stub: stub), request.sequenceNumber)
            }
            if reading.isStale {
                reading = ScenarioReading()
                continue
            }
            if passesUnmatchedThrough || passthrough.contains(where: { $0.matches(request) }) {
                var forwarded = request
                forwarded.answerSource = .passThrough
                noteAnswered(forwarded, at: slot)
                return (.passthrough(request.urlRequest), request.sequenceNumber)
            }
            if let unmatchedAnswer,
                let (stub, response, matched) = Self.claimFirstMatch(request, in: [unmatchedAnswer], reading: &reading)
            {
                noteAnswered(matched, at: slot)
                return (.respond(response.resolved(for: matched), request: matched, stub: stub), request.sequenceNumber)
            }
            // The report shows the scenarios' states that decided the miss: moved since, they may
            // answer the request now.
            guard let scenarioStates = scenarios.states(asOf: reading.generation) else {
                reading = ScenarioReading()
                continue
            }
            let report = UnmatchedRequestReport(request: request, registry: self, stubs: stubs, scenarioStates: scenarioStates)
            if reportingMisses {
                state.withLock { state in
                    state.unmatched.append(report)
                    state.unmatchedBytes += report.request.retainedBytes
                    // Looked at on every miss: misses are few next to requests.
                    var next = 0
                    retention.trim(
                        &state.unmatched, counting: &state.unmatchedDropped, checkNextAt: &next,
                        bytes: &state.unmatchedBytes, size: \.request.retainedBytes)
                }
                reporting.report(report.description, report.nearestStubLocation ?? location, createdInSwiftTesting)
            }
            return (.unmatched(UnmatchedRequestError(report: report)), request.sequenceNumber)
        }
    }

    /// Where a request was put in the log: its index (counting the requests let go since), while
    /// the log has not been emptied since.
    private struct LogSlot {
        let generation: Int
        let index: Int
    }

    /// Puts `answered` (where its answer came from, the path parameters of the stub that
    /// answered) in the log at `slot`, in place of the request as it arrived: the log and a
    /// stub's ``Stub/calls`` tell the same story. A log emptied since then is left alone (the
    /// request's place may hold a later request by now).
    private func noteAnswered(_ answered: RecordedRequest, at slot: LogSlot) {
        state.withLock { state in
            let index = slot.index - state.requestsDropped
            guard state.logGeneration == slot.generation, index >= 0 else { return }
            state.requests[index] = answered
        }
    }

    /// The stub that would answer `request` now, without taking a response or recording a call
    /// (engine machinery, as ``resolve(_:reportingMisses:bodyIsHidden:)``).
    @_spi(Engine) public func firstMatch(for request: RecordedRequest) -> Stub? {
        var found: Stub?
        StubIndex.forEachNewestFirst(state.withLock { $0.index.candidates(for: request) }) { entry in
            guard entry.matcher.matches(request), !entry.stub.isExhausted, entry.stub.scenarioAdmits else { return false }
            found = entry.stub
            return true
        }
        return found ?? state.withLock { $0.prioritized }.first { !$0.isExhausted && $0.scenarioAdmits && $0.matcher.matches(request) }
    }

    /// The index keys looked up for `request`: how many does not depend on the path's length.
    package func indexKeyCount(for request: RecordedRequest) -> Int {
        state.withLock { $0.index.keys(for: request).count }
    }

    /// Claims the newest stub that matches `head` (a HEAD request) taken as a GET, and records
    /// the HEAD, as sent, as its call.
    private func claimAsGet(_ head: RecordedRequest, reading: inout ScenarioReading) -> (Stub, MockResponse, RecordedRequest)? {
        guard !reading.isStale else { return nil }
        var urlRequest = head.urlRequest
        urlRequest.httpMethod = HTTPMethod.get.rawValue
        let get = RecordedRequest(urlRequest, bodyIsHidden: head.isBodyHidden)
        var claimed: (Stub, MockResponse, RecordedRequest)?
        StubIndex.forEachNewestFirst(state.withLock { $0.index.candidates(for: get) }) { entry in
            guard let (response, matched) = entry.stub.claimIfMatching(get, using: entry.matcher, recordingAs: head, reading: &reading)
            else { return reading.isStale }
            claimed = (entry.stub, response, matched)
            return true
        }
        return claimed
    }

    /// Claims the first of `stubs` that matches `request` and is not exhausted; none once
    /// `reading` is stale.
    private static func claimFirstMatch(
        _ request: RecordedRequest, in stubs: some Collection<Stub>, reading: inout ScenarioReading
    ) -> (Stub, MockResponse, RecordedRequest)? {
        guard !reading.isStale else { return nil }
        for stub in stubs {
            if let (response, matched) = stub.claimIfMatching(request, reading: &reading) { return (stub, response, matched) }
            if reading.isStale { return nil }
        }
        return nil
    }

    /// Claims the newest of `candidates` (the index's for `request`) that matches and is not
    /// exhausted; none once `reading` is stale.
    private func claimNewestMatch(
        _ request: RecordedRequest, among candidates: (indexed: [StubIndex.Bucket.Entry], scanned: [StubIndex.Bucket.Entry]),
        reading: inout ScenarioReading
    ) -> (Stub, MockResponse, RecordedRequest)? {
        guard !reading.isStale else { return nil }
        var claimed: (Stub, MockResponse, RecordedRequest)?
        StubIndex.forEachNewestFirst(candidates) { entry in
            guard let (response, matched) = entry.stub.claimIfMatching(request, using: entry.matcher, reading: &reading) else {
                return reading.isStale
            }
            claimed = (entry.stub, response, matched)
            return true
        }
        return claimed
    }
}

/// How many requests a registry's log, its stubs' calls and its unmatched reports keep, and how
/// many bytes of requests (bodies, and heads a server read) each of them holds at most: shared, so setting
/// ``StubRegistry/retainedRequests`` bounds them all.
final class RequestRetention: Sendable {
    private let value = Locked((limit: 10_000, bytes: Int.max))

    var limit: Int {
        get { value.current.limit }
        set { value.withLock { $0.limit = max(1, newValue) } }
    }

    /// The bytes of requests one log keeps at most.
    var bytes: Int {
        get { value.current.bytes }
        set { value.withLock { $0.bytes = max(0, newValue) } }
    }

    /// The length at which a new (or emptied) log is first looked at.
    static let firstCheck = 1

    /// A request this large makes its log be looked at when it is appended, whatever its
    /// length; smaller ones are looked at with the count, every 64 at most, so a log passes the
    /// byte limit by less than 64 of them (256 KB).
    static let largeRequest = 4 * 1024

    /// Lets the oldest of `log` go once it is a quarter past the limit (so the cost of letting
    /// go is spread over many appends), and while its requests (`bytes`, `size` of each entry)
    /// are past the byte limit, counting them in `dropped`; `next` is the length at which a
    /// log's owner calls this again (the limits are read under a lock: not on every append).
    func trim<Entry>(
        _ log: inout [Entry], counting dropped: inout Int, checkNextAt next: inout Int, bytes: inout Int,
        size: (Entry) -> Int
    ) {
        let (limit, byteLimit) = value.current
        let slack = max(16, limit / 4)
        var excess = log.count > limit + slack ? log.count - limit : 0
        var kept = bytes - log[..<excess].reduce(0) { $0 + size($1) }
        // The newest too: kept, an upload of megabytes would stay until enough requests came
        // after it, and in the calls of a stub that answers rarely, for good.
        while kept > byteLimit, excess < log.count {
            kept -= size(log[excess])
            excess += 1
        }
        if excess > 0 {
            log.removeFirst(excess)
            dropped += excess
            bytes = kept
        }
        // Looked at again after at most 64 more: a limit set lower meanwhile is soon honoured.
        next = log.count + min(64, max(1, limit + slack + 1 - log.count))
    }
}
