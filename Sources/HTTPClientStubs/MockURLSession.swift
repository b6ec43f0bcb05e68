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
/// What a request gets, in order: the next result of the FIFO queue (``enqueue(_:)``) if any;
/// otherwise ``nextData`` / ``nextResponse`` / ``nextError`` if any is set (a missing response
/// becomes a 200 for the request's URL unless there is an error); otherwise the answer of the
/// ``stubs`` registry, if the session has one (strict: an unmatched request fails); with
/// nothing at all, 200 and an empty body. Safe to use from many threads at once.
public final class MockURLSession: URLSessionProtocol, Sendable {
    private struct State {
        var nextDataTask = MockURLSessionDataTask()
        var nextData: Data?
        var nextResponse: URLResponse?
        var nextError: (any Error)?
        var queue: [MockResponse] = []
        var queueStart = 0
        var requests: [URLRequest] = []
    }

    private let state = Locked(State())

    /// The stub registry that answers requests the queue and `next...` values do not.
    public let stubs: StubRegistry?
    /// Whether responses' latency and throughput are honoured (on a background queue). Off by
    /// default: answers arrive synchronously inside `resume()`.
    public let simulatesLatency: Bool
    /// Where requests to the registry's pass-through hosts go.
    public let passthroughSession: any URLSessionProtocol

    /// Creates a session.
    ///
    /// - Parameters:
    ///   - stubs: A registry to answer from; without one (and with nothing canned) every
    ///     request gets 200 and an empty body.
    ///   - simulatesLatency: Honour ``MockResponse/latency`` and ``MockResponse/throughput``.
    ///   - passthroughSession: The session for the registry's pass-through hosts.
    public init(
        stubs: StubRegistry? = nil,
        simulatesLatency: Bool = false,
        passthroughSession: any URLSessionProtocol = URLSession.shared
    ) {
        self.stubs = stubs
        self.simulatesLatency = simulatesLatency
        self.passthroughSession = passthroughSession
    }

    // MARK: Canned results

    /// The task the next request gets; a fresh one takes its place after every request.
    public var nextDataTask: MockURLSessionDataTask {
        get { state.withLock { $0.nextDataTask } }
        set { state.withLock { $0.nextDataTask = newValue } }
    }

    /// The body delivered to every request (when the queue is empty), until changed.
    public var nextData: Data? {
        get { state.withLock { $0.nextData } }
        set { state.withLock { $0.nextData = newValue } }
    }

    /// The response delivered to every request (when the queue is empty), until changed.
    public var nextResponse: URLResponse? {
        get { state.withLock { $0.nextResponse } }
        set { state.withLock { $0.nextResponse = newValue } }
    }

    /// The error delivered to every request (when the queue is empty), until changed.
    public var nextError: (any Error)? {
        get { state.withLock { $0.nextError } }
        set { state.withLock { $0.nextError = newValue } }
    }

    /// Appends results to the FIFO queue: each request takes the oldest one.
    public func enqueue(_ responses: MockResponse...) {
        enqueue(contentsOf: responses)
    }

    /// Appends results to the FIFO queue: each request takes the oldest one.
    public func enqueue(contentsOf responses: [MockResponse]) {
        state.withLock { $0.queue.append(contentsOf: responses) }
    }

    /// How many queued results are still waiting for a request.
    public var queuedResponseCount: Int {
        state.withLock { $0.queue.count - $0.queueStart }
    }

    // MARK: What was asked

    /// Every request, in the order the tasks were created.
    public var requests: [URLRequest] { state.withLock { $0.requests } }

    /// The most recent request.
    public var lastRequest: URLRequest? { state.withLock { $0.requests.last } }

    /// The URL of the most recent request.
    public var lastURL: URL? { lastRequest?.url }

    /// Forgets recorded requests and queued results (canned `next...` values stay).
    public func removeAllRecords() {
        state.withLock { state in
            state.requests.removeAll()
            state.queue.removeAll()
            state.queueStart = 0
        }
    }

    // MARK: URLSessionProtocol

    public func makeDataTask(
        with streamedRequest: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any URLSessionDataTaskProtocol {
        // A body stream is read once, here; every later reader gets the bytes it gave.
        let (request, streamError) = RecordedRequest.readingBodyStream(streamedRequest)
        let (task, queued, fields) = state.withLock { state in
            state.requests.append(request)
            let task = state.nextDataTask
            state.nextDataTask = MockURLSessionDataTask()
            var queued: MockResponse?
            if state.queueStart < state.queue.count {
                queued = state.queue[state.queueStart]
                state.queueStart += 1
                if state.queueStart == state.queue.count {
                    state.queue.removeAll(keepingCapacity: true)
                    state.queueStart = 0
                }
            }
            return (task, queued, (state.nextData, state.nextResponse, state.nextError))
        }
        let answer: MockResponse
        if let streamError {
            answer = .error(streamError)
        } else if let queued {
            answer = queued
        } else if let stubs, fields.0 == nil, fields.1 == nil, fields.2 == nil {
            switch stubs.resolve(request) {
            case .respond(let response, _, _):
                answer = response
            case .unmatched(let error):
                answer = .error(error)
            case .failed(let error):
                answer = .error(error)
            case .passthrough(let forwarded):
                return passthroughSession.makeDataTask(with: forwarded, completionHandler: completionHandler)
            }
        } else {
            let arguments = Self.arguments(data: fields.0, response: fields.1, error: fields.2, request: request)
            task.prepare(request: request, arguments: arguments, delay: 0, completion: completionHandler)
            return task
        }
        let arguments = answer.completionArguments(for: request)
        let delay = simulatesLatency ? answer.latency + answer.downloadTime(bodySize: arguments.0?.count ?? 0) : 0
        task.prepare(request: request, arguments: arguments, delay: delay, completion: completionHandler)
        return task
    }

    private static func arguments(
        data: Data?, response: URLResponse?, error: (any Error)?, request: URLRequest
    ) -> (Data?, URLResponse?, (any Error)?) {
        if response != nil || error != nil {
            return (data, response, error)
        }
        return MockResponse.status(200, body: data ?? Data()).completionArguments(for: request)
    }
}
