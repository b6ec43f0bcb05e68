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
public final class StubRegistry: Sendable, CustomStringConvertible {
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
        /// Stubs found without scanning, in registration order: by method (or any) and the
        /// exact path with its exact query, the exact path, or the leading segments a template
        /// or prefix fixes (see `StubIndexKey`).
        var indexed: [StubIndexKey: StubBucket] = [:]
        /// How many of those buckets are by exact query: only then is a request's query parsed
        /// to find its bucket.
        var queryBuckets = 0
        /// Every other stub, in registration order.
        var scanned = StubBucket()
        var requests: [RecordedRequest] = []
        var unmatched: [UnmatchedRequestReport] = []
        /// A `MockURLSession`'s own answers (queued, `next...`, default), each in its place of
        /// ``AnswerOrder``, oldest first within it.
        var fallbacks: [(order: AnswerOrder, stub: Stub)] = []
        /// Every gate a response of this registry was held by, for verification.
        var holds: [HeldResponse] = []
        /// Unmatched requests that satisfy one of these go to the real network.
        var passthrough: [RequestMatcher] = []
    }

    /// The name reports use: given, or the Swift Testing test that created the registry, or
    /// where it was created.
    public let name: String
    /// Where the registry was created; unmatched requests are reported here.
    public let location: CallSite
    /// What reports hide: the request's credentials, in its URL, headers and body, and the
    /// values the rules hide wherever else they appear in the report.
    public let redaction: Redaction
    let reporting: FailureReporting
    let createdInSwiftTesting: Bool
    private let state = Locked(State())
    /// The leading segments templates and prefixes are filed under, by number.
    private let leadingSegments = LeadingSegmentIndex()

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

    public var description: String { "StubRegistry \"\(name)\"" }

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
        register(matcher, indexKey: nil, site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Method, path and further conditions; indexed under `METHOD path` when the path is exact.
    private func register(_ method: HTTPMethod?, _ target: StubTarget, site: CallSite) -> Stub {
        let path = target.path
        let all = (method.map { [RequestMatcher.method($0)] } ?? []) + [.path(path)] + target.otherConditions
        let matcher = all.dropFirst().reduce(all[0], &&)
        // A full URL with a query is filed under its exact query: a thousand query variants of
        // one path are a thousand buckets, not one bucket scanned newest first.
        let key =
            path.exactPath.map { exact in
                target.queryKey.map { StubIndexKey(method: method, route: .pathAndQuery(exact, $0)) }
                    ?? StubIndexKey(method: method, route: .path(exact))
            }
            ?? path.fixedLeadingSegments.map { StubIndexKey(method: method, route: .leadingSegments(leadingSegments.number(of: $0))) }
        // The key decides the method (it is part of the key), and the path when it is exact.
        let decided = key == nil ? 0 : (method == nil ? 0 : 1) + (path.exactPath == nil ? 0 : 1)
        return register(matcher, indexKey: key, conditionsDecidedByIndex: decided, site: site)
    }

    private func register(_ matcher: RequestMatcher, indexKey: StubIndexKey?, conditionsDecidedByIndex: Int = 0, site: CallSite) -> Stub {
        state.withLock { state in
            let stub = Stub(
                id: state.nextID, matcher: matcher, indexKey: indexKey, conditionsDecidedByIndex: conditionsDecidedByIndex, location: site)
            state.nextID += 1
            state.stubs.append(stub)
            if let indexKey {
                if indexKey.isByQuery, state.indexed[indexKey] == nil { state.queryBuckets += 1 }
                state.indexed[indexKey, default: StubBucket()].insert(stub)
            } else {
                state.scanned.insert(stub)
            }
            // A condition added later (`matching(.header(...))`) may file it under a value.
            stub.whenConditionsChange { [weak self] stub in self?.refile(stub) }
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
            state.scanned.remove(stub)
            state.fallbacks.removeAll { $0.stub === stub }
            if let key = stub.indexKey {
                state.indexed[key]?.remove(stub)
                if state.indexed[key]?.isEmpty == true {
                    state.indexed[key] = nil
                    if key.isByQuery { state.queryBuckets -= 1 }
                }
            }
        }
    }

    /// Files `stub` again after its conditions changed, if it is still registered.
    private func refile(_ stub: Stub) {
        state.withLock { state in
            if let key = stub.indexKey {
                if state.indexed[key]?.remove(stub) == true { state.indexed[key]?.insert(stub) }
            } else if state.scanned.remove(stub) {
                state.scanned.insert(stub)
            }
        }
    }

    /// Removes every stub, and forgets recorded requests and unmatched reports. The answers of
    /// a `MockURLSession` over this registry stay in place, emptied (no queued answers, no
    /// calls).
    public func reset() {
        let fallbacks = state.withLock { state in
            let fallbacks = state.fallbacks
            state = State(nextID: state.nextID, fallbacks: fallbacks, passthrough: state.passthrough)
            return fallbacks
        }
        for (_, stub) in fallbacks { stub.forgetCallsAndQueue() }
    }

    /// Forgets recorded requests and unmatched reports; stubs and their calls stay.
    package func forgetRequests() {
        state.withLock { state in
            state.requests.removeAll()
            state.unmatched.removeAll()
        }
    }

    /// Registers one of a session's own answers, tried in its place of ``AnswerOrder`` (after
    /// the fallbacks registered before it in the same place).
    package func addFallback(_ matcher: RequestMatcher, in order: AnswerOrder, site: CallSite) -> Stub {
        state.withLock { state in
            let stub = Stub(id: state.nextID, matcher: matcher, indexKey: nil, location: site)
            state.nextID += 1
            state.fallbacks.append((order, stub))
            return stub
        }
    }

    /// Remembers a gate that held one of this registry's responses.
    package func noteHold(_ hold: HeldResponse) {
        state.withLock { state in
            if !state.holds.contains(where: { $0 === hold }) { state.holds.append(hold) }
        }
    }

    // MARK: Inspecting

    /// The requests still waiting on a ``HeldResponse``.
    public var heldRequests: [(hold: HeldResponse, request: RecordedRequest)] {
        state.withLock { $0.holds }.flatMap { hold in hold.heldRequests.map { (hold, $0) } }
    }

    /// The registered stubs, oldest first (a `MockURLSession`'s own answers are its
    /// `queuedAnswers` and `cannedAnswers`, not listed here).
    public var stubs: [Stub] { state.withLock { $0.stubs } }

    /// Every request the registry saw (matched or not), in arrival order.
    public var requests: [RecordedRequest] { state.withLock { $0.requests } }

    /// The report of every request that matched no stub.
    public var unmatchedRequests: [UnmatchedRequestReport] { state.withLock { $0.unmatched } }

    /// Stubs that were never used and did not opt out with ``Stub/allowingUnused()``.
    public var unusedStubs: [Stub] { stubs.filter { $0.expectsUse && $0.callCount == 0 } }

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
    @_spi(Engine) public func resolve(_ urlRequest: URLRequest, reportingMisses: Bool = true, bodyIsHidden: Bool = false) -> Resolution {
        var request = RecordedRequest(urlRequest, bodyIsHidden: bodyIsHidden)
        state.withLock { state in
            request.sequenceNumber = state.requests.count
            state.requests.append(request)
        }
        if let error = request.bodyStreamError { return .failed(error) }
        for order in AnswerOrder.allCases {
            switch order {
            case .stubs:
                let (indexed, scanned) = candidates(for: request)
                if let (stub, response, matched) = claimNewestMatch(request, indexed: indexed, scanned: scanned) {
                    return .respond(response.resolved(for: matched), request: matched, stub: stub)
                }
            case .queued, .canned, .defaultAnswer:
                if let (stub, response, matched) = claimFallback(request, in: order) {
                    return .respond(response.resolved(for: matched), request: matched, stub: stub)
                }
            case .passThrough:
                if state.withLock({ $0.passthrough }).contains(where: { $0.matches(request) }) {
                    return .passthrough(request.urlRequest)
                }
            case .unmatched:
                break
            }
        }
        let report = UnmatchedRequestReport(request: request, registry: self, stubs: stubs)
        if reportingMisses {
            state.withLock { $0.unmatched.append(report) }
            reporting.report(report.description, report.nearestStubLocation ?? location, createdInSwiftTesting)
        }
        return .unmatched(UnmatchedRequestError(report: report))
    }

    /// The stub that would answer `request` now, without taking a response or recording a call
    /// (engine machinery, as ``resolve(_:reportingMisses:bodyIsHidden:)``).
    @_spi(Engine) public func firstMatch(for request: RecordedRequest) -> Stub? {
        let (indexed, scanned) = candidates(for: request)
        var found: Stub?
        Self.forEachNewestFirst(indexed, scanned) { entry in
            guard entry.matcher.matches(request), !entry.stub.isExhausted else { return false }
            found = entry.stub
            return true
        }
        return found ?? state.withLock { $0.fallbacks }.map(\.stub).first { !$0.isExhausted && $0.matcher.matches(request) }
    }

    /// Claims the first fallback in `order`, oldest first, that matches and is not exhausted.
    private func claimFallback(_ request: RecordedRequest, in order: AnswerOrder) -> (Stub, MockResponse, RecordedRequest)? {
        for (place, stub) in state.withLock({ $0.fallbacks }) where place == order {
            if let (response, matched) = stub.claimIfMatching(request) { return (stub, response, matched) }
        }
        return nil
    }

    /// The stubs that could match: those of the indexed buckets for the request's method, path,
    /// query and leading segments (merged by id), and the unindexed ones; in either, only the stubs that
    /// require no header or query value, or one the request carries.
    private func candidates(for request: RecordedRequest) -> (indexed: [StubBucket.Entry], scanned: [StubBucket.Entry]) {
        state.withLock { state in
            let scanned = state.scanned.candidates(for: request)
            guard !state.indexed.isEmpty else { return ([], scanned) }  // a session's own answers only
            let keys = indexKeys(for: request, queryBuckets: state.queryBuckets)
            return (StubBucket.merged(keys.compactMap { state.indexed[$0]?.candidates(for: request) }), scanned)
        }
    }

    /// The index keys looked up for `request`: how many does not depend on the path's length.
    package func indexKeyCount(for request: RecordedRequest) -> Int {
        indexKeys(for: request, queryBuckets: state.withLock { $0.queryBuckets }).count
    }

    private func indexKeys(for request: RecordedRequest, queryBuckets: Int) -> [StubIndexKey] {
        StubIndexKey.candidates(
            method: request.method, path: request.path, leadingSegments: leadingSegments.numbers(in: request.path),
            queryKey: queryBuckets > 0 ? request.queryKey : nil)
    }

    /// Claims the newest stub that matches and is not exhausted.
    private func claimNewestMatch(
        _ request: RecordedRequest, indexed: [StubBucket.Entry], scanned: [StubBucket.Entry]
    ) -> (Stub, MockResponse, RecordedRequest)? {
        var claimed: (Stub, MockResponse, RecordedRequest)?
        Self.forEachNewestFirst(indexed, scanned) { entry in
            guard let (response, matched) = entry.stub.claimIfMatching(request, using: entry.matcher) else { return false }
            claimed = (entry.stub, response, matched)
            return true
        }
        return claimed
    }

    /// Visits two id-ordered lists together, newest (highest id) first, until `body` returns true.
    private static func forEachNewestFirst(
        _ indexed: [StubBucket.Entry], _ scanned: [StubBucket.Entry], _ body: (StubBucket.Entry) -> Bool
    ) {
        var i = indexed.count - 1
        var s = scanned.count - 1
        while i >= 0 || s >= 0 {
            let stub: StubBucket.Entry
            if s < 0 || (i >= 0 && indexed[i].id > scanned[s].id) {
                stub = indexed[i]
                i -= 1
            } else {
                stub = scanned[s]
                s -= 1
            }
            if body(stub) { return }
        }
    }
}
