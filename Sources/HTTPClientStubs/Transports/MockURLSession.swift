import Foundation
import HTTPClient

/// A session for unit tests: it records every request and answers with canned results,
/// synchronously, inside the task's `resume()`.
///
/// ```swift
/// let session = MockURLSession()
/// session.nextData = Data(#"{"id": 1}"#.utf8)
/// let client = HTTPClient(session: session)
/// ```
///
/// It is a thin transport over a ``StubRegistry`` it always has (``stubs``: yours, or its own),
/// so every answer is chosen, recorded and verifiable the same way. Its own answers are
/// ordinary stubs of that registry, tried after every stub of yours (see ``Stub/priority(_:)``):
/// the answers queued with ``enqueue(_:)`` (``queuedAnswers``), then ``nextData`` /
/// ``nextResponse`` / ``nextError`` while any is set (``cannedAnswers``). A session created
/// without a registry answers what nothing else does with 200 and an empty body; with a
/// registry of yours, such a request is unmatched and the test fails with the report. Safe to
/// use from many threads at once.
public final class MockURLSession: URLSessionProtocol, Sendable {
    private struct Canned: Sendable {
        var nextDataTask = MockURLSessionDataTask()
        var data: Data?
        var response: URLResponse?
        var error: (any Error)?

        var isSet: Bool { data != nil || response != nil || error != nil }

        /// What the values answer: 200 with `data` unless a response or an error is set.
        var answer: MockResponse {
            response == nil && error == nil
                ? MockResponse.status(200, body: data ?? Data()) : MockResponse(.completion(data: data, response: response, error: error))
        }
    }

    private let canned: Locked<Canned>

    /// The registry that chooses every answer and records every request.
    public let stubs: StubRegistry
    /// The stub that serves the answers queued with `enqueue(_:)`: verify it like any other.
    public let queuedAnswers: Stub
    /// The stub that serves ``nextData``, ``nextResponse`` and ``nextError`` while any is set.
    public let cannedAnswers: Stub
    /// The 200 of a session made without a registry, when nothing else answers.
    private let defaultAnswer: Stub?
    /// Whether responses' latency and throughput are honoured (on a background queue). Off by
    /// default: answers arrive synchronously inside `resume()`.
    package let simulatesLatency: Bool
    /// Where requests the registry lets through go.
    package let passthroughSession: any URLSessionProtocol
    /// What the session does around each answer, as a `URLSession` with its configuration would.
    let behaviour: SessionBehaviour

    /// Where `Set-Cookie` from stubs lands, and where later requests' `Cookie` comes from: the
    /// configuration's storage (a fresh, empty one without a configuration).
    public var cookieStorage: HTTPCookieStorage? {
        // The test may add cookies of its own from here on.
        behaviour.privateJar?.noteMayHoldCookies()
        return behaviour.cookieStorage
    }

    /// Creates a session.
    ///
    /// - Parameters:
    ///   - stubs: The registry to answer from. Without one, the session makes its own, which
    ///     answers 200 with an empty body when nothing else does.
    ///   - configuration: What a real session would be made with: its cookie storage, cookie
    ///     accept policy and `httpShouldSetCookies`, `timeoutIntervalForRequest`, URL cache and
    ///     request cache policy apply. Without one, the session behaves as with `.ephemeral`
    ///     and keeps cookies in a jar of its own (``cookieStorage``).
    ///   - followsRedirects: Follow 3xx answers with `Location` as `URLSession` does (every hop
    ///     is a request of its own); `false` delivers them as they are.
    ///   - simulatesLatency: Wait out a response's latency and throughput (``MockResponse/delayed(by:)-(TimeInterval)``, ``MockResponse/throttled(to:)``).
    ///     Without it answers come at once, but one later than the timeout still fails with
    ///     `URLError(.timedOut)`.
    ///   - passthroughSession: The session for the requests the registry lets through.
    ///   - fileID: Where this is called (with `filePath`, `line` and `column`): failures the
    ///     registry reports point here. Leave the defaults.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    public init(
        stubs: StubRegistry? = nil,
        configuration: URLSessionConfiguration? = nil,
        followsRedirects: Bool = true,
        simulatesLatency: Bool = false,
        passthroughSession: any URLSessionProtocol = URLSession.shared,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let registry = stubs ?? StubRegistry(fileID: fileID, filePath: filePath, line: line, column: column)
        let canned = Locked(Canned())
        self.canned = canned
        self.stubs = registry
        self.simulatesLatency = simulatesLatency
        self.passthroughSession = passthroughSession
        var behaviour = SessionBehaviour(configuration: configuration ?? .ephemeral, followsRedirects: followsRedirects)
        if configuration == nil { behaviour.privateJar = PrivateCookieJar() }
        self.behaviour = behaviour

        // The session's own answers are stubs like any other, after every stub of yours
        // (``Stub/priority(_:)``), kept through the registry's `reset()`.
        queuedAnswers = registry.stub(.any, declaredAt: site).named("answers queued with enqueue").priority(1).ownedByTransport()
            .allowingUnused()
        queuedAnswers.enqueue([])
        let cannedMatcher = RequestMatcher("nextData, nextResponse or nextError is set") { _ in
            canned.withLock { $0.isSet } ? nil : "none of nextData, nextResponse and nextError is set"
        }
        // The stub answers what the values make: given to it whenever one changes (see
        // `changeCanned`), one response for every request in between, as any stub's.
        cannedAnswers = registry.stub(cannedMatcher, declaredAt: site).named("nextData, nextResponse and nextError")
            .respond(Canned().answer).priority(2).ownedByTransport().allowingUnused()
        defaultAnswer =
            stubs == nil
            ? registry.answerUnmatched(with: .status(200), declaredAt: site).named(
                "200, the default answer of a session without a registry")
            : nil
    }

    // MARK: Canned results

    /// The task the next request gets; a fresh one takes its place after every request.
    public var nextDataTask: MockURLSessionDataTask {
        get { canned.withLock { $0.nextDataTask } }
        set { canned.withLock { $0.nextDataTask = newValue } }
    }

    /// The body delivered to every request no stub or queued answer takes, until changed.
    public var nextData: Data? {
        get { canned.withLock { $0.data } }
        set { changeCanned { $0.data = newValue } }
    }

    /// The response delivered to every request no stub or queued answer takes, until changed.
    public var nextResponse: URLResponse? {
        get { canned.withLock { $0.response } }
        set { changeCanned { $0.response = newValue } }
    }

    /// The error delivered to every request no stub or queued answer takes, until changed.
    public var nextError: (any Error)? {
        get { canned.withLock { $0.error } }
        set { changeCanned { $0.error = newValue } }
    }

    /// Applies `change` to the `next...` values and gives ``cannedAnswers`` the answer they
    /// make now, inside the one lock: the stub always answers the values last set.
    private func changeCanned(_ change: (inout Canned) -> Void) {
        canned.withLock { canned in
            change(&canned)
            cannedAnswers.respond(canned.answer)
        }
    }

    /// Appends answers to the queue: each request no stub takes gets the oldest one.
    public func enqueue(_ responses: MockResponse...) {
        queuedAnswers.enqueue(responses)
    }

    /// How many queued answers are still waiting for a request.
    package var queuedResponseCount: Int { queuedAnswers.queuedCount }

    // MARK: What was asked

    /// Every request the registry saw, in the order the tasks were created (all of the
    /// registry's requests, when several sessions share it).
    public var requests: [RecordedRequest] { stubs.requests }

    /// The URL of the most recent request (the whole request is `requests.last`).
    public var lastURL: URL? { requests.last?.url }

    /// Forgets recorded requests and queued answers, and the calls of the session's own answers
    /// (stubs and `next...` values stay). A session that lives long, answering many requests,
    /// keeps its memory flat by calling this now and then.
    public func removeAllRecords() {
        stubs.forgetRequests()
        queuedAnswers.forgetCallsAndQueue()
        cannedAnswers.forgetCallsAndQueue()
        defaultAnswer?.forgetCallsAndQueue()
    }

    // MARK: URLSessionProtocol

    public func makeDataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any URLSessionDataTaskProtocol {
        let simulatesLatency = simulatesLatency
        return startTask(for: request) { $0.begin(request, simulatingLatency: simulatesLatency, completion: completionHandler) }
    }

    /// The next task, handed out for `request` and given the session's answer. A request let
    /// through goes to `forward` when given (a stream, which the pass-through session streams
    /// itself), otherwise to a task of the pass-through session.
    private func startTask(
        for request: URLRequest, forward: (@Sendable (URLRequest) -> Void)? = nil, begin: (MockURLSessionDataTask) -> Void
    ) -> MockURLSessionDataTask {
        let task = canned.withLock { canned in
            defer { canned.nextDataTask = MockURLSessionDataTask() }
            return canned.nextDataTask
        }
        begin(task)
        let passthroughSession = passthroughSession
        behaviour.exchange(request, through: stubs, cancellation: task.exchangeCancellation) { result in
            if case .passthrough(let forwarded) = result, let forward {
                forward(forwarded)
            } else {
                task.receive(result, passthroughSession: passthroughSession)
            }
        }
        return task
    }

    /// Answers `request` with its response first, then its body in the pieces of a
    /// ``MockResponse/streamed(status:headers:_:)`` stub (one chunk otherwise). The first
    /// window of chunks (`ChunkStream.defaultWindow`) is ready when this returns, the rest as
    /// the reader takes them; the latency and `.pause` parts are waited out when the session
    /// simulates latency. Letting the stream go, or cancelling the Swift task, cancels the
    /// task; a reader whose task is cancelled gets `CancellationError`.
    public func chunks(for request: URLRequest) async throws -> (ChunkStream, URLResponse) {
        /// How the exchange ended for a stream: played from the answer, or let through.
        enum Answered {
            case played(URLResponse)
            case forwarded(URLRequest)
        }
        let (stream, chunks) = ChunkStream.makeStream()
        let simulatesLatency = simulatesLatency
        let cancellation = TaskCancellation()
        let playing = Locked<AnswerPlayer?>(nil)
        // Answered once: by the head, the failure before it, a pass-through, or a cancel.
        let waiting = Locked<CheckedContinuation<Answered, any Error>?>(nil)
        let answers = { @Sendable (result: Result<Answered, any Error>) in
            waiting.withLock { $0.take() }?.resume(with: result)
        }
        let cancelled = { @Sendable in
            // An answer already playing (its latency, say) stops, and the caller gets the cancel.
            playing.withLock { $0 }?.stop()
            var userInfo: [String: Any] = [:]
            if let url = request.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
            answers(.failure(URLError(.cancelled, userInfo: userInfo)))
        }
        let answer = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Answered, any Error>) in
                waiting.withLock { $0 = continuation }
                let task = startTask(for: request) { forwarded in
                    answers(.success(.forwarded(forwarded)))
                } begin: { task in
                    task.begin(request) { answer in
                        let player = ChunkFeed.player(for: answer, into: chunks, waitsOutTime: simulatesLatency) { head in
                            answers(head.map(Answered.played))
                        }
                        playing.withLock { $0 = player }
                        player.play()
                    }
                }
                chunks.onTermination = {
                    task.cancel()
                    playing.withLock { $0 }?.stop()
                }
                cancellation.register(task)
                if Task.isCancelled { cancelled() }
                task.resume()
            }
        } onCancel: {
            cancellation.cancel()
            cancelled()
        }
        switch answer {
        case .played(let response):
            return (stream, response)
        case .forwarded(let forwarded):
            chunks.finish()
            return try await passthroughSession.chunks(for: forwarded)
        }
    }
}
