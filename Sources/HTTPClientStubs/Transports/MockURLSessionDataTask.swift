import Foundation
import HTTPClient

/// The task a ``MockURLSession`` hands out. It records how it was used and delivers its answer
/// synchronously inside ``resume()``, on the caller's thread, exactly once.
///
/// Like a real task, it never completes if it is never resumed, and ``cancel()`` before it has
/// completed delivers `URLError(.cancelled)`. An answer held by a ``HeldResponse`` is delivered
/// inside `release()`, if the task was resumed by then.
public final class MockURLSessionDataTask: URLSessionDataTaskProtocol, Sendable {
    private enum Phase: Sendable {
        /// Not handed out yet, or its answer is held.
        case waiting
        case ready(Delivery)
        /// The registry let the request through: this real task carries it.
        case forwarding(any URLSessionDataTaskProtocol)
        /// Its answer is on its way after a simulated latency.
        case scheduled(Delivery)
        case finished
    }

    private struct State: ExchangeCancellation.Holder {
        var resumeCount = 0
        var cancelWasCalled = false
        var phase = Phase.waiting
        var request: URLRequest?
        var simulatesLatency = false
        /// The caller reads the body in pieces and waits out their pauses itself.
        var streams = false
        var completion: (@Sendable (Delivery) -> Void)?
        /// The exchange's, kept in the task's one lock box.
        var cancellation = ExchangeCancellation.State()
    }

    private let state = Locked(State())
    /// Cancelled with the task: its exchange stops where it is (a held answer lets go).
    var exchangeCancellation: ExchangeCancellation { ExchangeCancellation(sharing: state) }

    /// Creates a task. Assign it to ``MockURLSession/nextDataTask`` to give it to the next request.
    public init() {}

    /// Whether ``resume()`` was called at least once.
    public var resumeWasCalled: Bool { resumeCount > 0 }

    /// How many times ``resume()`` was called.
    package var resumeCount: Int { state.withLock { $0.resumeCount } }

    /// Whether ``cancel()`` was called.
    public var cancelWasCalled: Bool { state.withLock { $0.cancelWasCalled } }

    /// The request this task was created for, once a session has handed it out.
    public var originalRequest: URLRequest? { state.withLock { $0.request } }

    /// Delivers the answer, the first time only: inside this call, or after the response's
    /// latency when the session simulates it, or when a held response is released.
    public func resume() {
        let action = state.withLock { state -> Action in
            state.resumeCount += 1
            guard state.resumeCount == 1 else { return .none }
            return Self.start(&state)
        }
        perform(action)
    }

    /// Delivers `URLError(.cancelled)` if the task has not completed yet.
    public func cancel() {
        defer { exchangeCancellation.cancel() }
        let action = state.withLock { state -> Action in
            state.cancelWasCalled = true
            switch state.phase {
            case .finished:
                return .none
            case .forwarding(let task):
                return .cancelForwarded(task)
            case .waiting, .ready, .scheduled:
                state.phase = .finished
                var userInfo: [String: Any] = [:]
                if let url = state.request?.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
                let error = URLError(.cancelled, userInfo: userInfo)
                return .complete(
                    Delivery(request: state.request ?? URLRequest(url: URL(fileURLWithPath: "/")), error: error), state.completion)
            }
        }
        perform(action)
    }

    // MARK: Engine

    /// Hands the task out for `request`: `completion` receives what the session decides,
    /// once the task is resumed.
    func begin(
        _ request: URLRequest, simulatingLatency: Bool, completion: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) {
        begin(request, simulatingLatency: simulatingLatency, streaming: false) { completion($0.data, $0.response, $0.error) }
    }

    /// Hands the task out for `request`, for a caller that wants the whole delivery (its
    /// pieces, for a stream, which is `streaming`: it gets the delivery once the headers are
    /// due, not after the body's time).
    func begin(
        _ request: URLRequest, simulatingLatency: Bool, streaming: Bool, deliver completion: @escaping @Sendable (Delivery) -> Void
    ) {
        state.withLock { state in
            state.request = request
            state.simulatesLatency = simulatingLatency
            state.streams = streaming
            state.completion = completion
        }
    }

    /// The session's decision: delivered now if the task runs, or when it is resumed.
    func receive(_ result: ExchangeResult, passthroughSession: any URLSessionProtocol) {
        switch result {
        case .deliver(let delivery):
            receive(delivery)
        case .passthrough(let request):
            let completion = state.withLock { $0.completion }
            let forwarded = passthroughSession.makeDataTask(with: request) { data, response, error in
                completion?(Delivery(request: request, arguments: (data, response, error)))
            }
            let action = state.withLock { state -> Action in
                guard case .waiting = state.phase else { return .none }  // cancelled meanwhile
                state.phase = .forwarding(forwarded)
                return state.resumeCount > 0 ? .resumeForwarded(forwarded) : .none
            }
            perform(action)
        }
    }

    private func receive(_ delivery: Delivery) {
        let action = state.withLock { state -> Action in
            guard case .waiting = state.phase else { return .none }  // cancelled meanwhile
            state.phase = .ready(delivery)
            return state.resumeCount > 0 ? Self.start(&state) : .none
        }
        perform(action)
    }

    private enum Action {
        case none
        case complete(Delivery, (@Sendable (Delivery) -> Void)?)
        case completeLater(after: TimeInterval)
        case resumeForwarded(any URLSessionDataTaskProtocol)
        case cancelForwarded(any URLSessionDataTaskProtocol)
    }

    /// What starting a resumed task means in its phase (called inside the lock).
    private static func start(_ state: inout State) -> Action {
        switch state.phase {
        case .ready:
            // Moved out of the phase, not copied: a delivery is a dozen fields to retain.
            var phase = Phase.finished
            swap(&phase, &state.phase)
            guard case .ready(let delivery) = consume phase else { return .none }
            let delay = state.simulatesLatency ? delivery.latency + (state.streams ? 0 : delivery.downloadTime) : 0
            if delay > 0 {
                state.phase = .scheduled(delivery)
                return .completeLater(after: delay)
            }
            return .complete(delivery, state.completion)
        case .forwarding(let task):
            return .resumeForwarded(task)
        case .waiting, .scheduled, .finished:
            return .none
        }
    }

    private func perform(_ action: Action) {
        switch action {
        case .none:
            break
        case .complete(let delivery, let completion):
            completion?(delivery)
            delivery.noteDelivered()
        case .completeLater(let delay):
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
                let due = state.withLock { state -> Action in
                    // Not scheduled any more when cancel() delivered first.
                    guard case .scheduled(let delivery) = state.phase else { return .none }
                    state.phase = .finished
                    return .complete(delivery, state.completion)
                }
                perform(due)
            }
        case .resumeForwarded(let task):
            task.resume()
        case .cancelForwarded(let task):
            task.cancel()
        }
    }
}
