import Foundation
import HTTPClient

/// The task a ``MockURLSession`` hands out. It records how it was used and delivers its answer
/// synchronously inside ``resume()``, on the caller's thread, exactly once.
///
/// Like a real task, it never completes if it is never resumed, and ``cancel()`` before it has
/// completed delivers `URLError(.cancelled)`. An answer held by a ``HeldResponse`` is delivered
/// inside `release()`, if the task was resumed by then.
public final class MockURLSessionDataTask: URLSessionDataTaskProtocol, Sendable {
    /// Who gets the answer: a caller of the whole body, or a stream that plays it itself.
    private enum Receiver: Sendable {
        case whole(@Sendable (Data?, URLResponse?, (any Error)?) -> Void)
        case stream(@Sendable (Answer) -> Void)
    }

    private enum Phase: Sendable {
        /// Not handed out yet, or its answer is held.
        case waiting
        case ready(Answer)
        /// The registry let the request through: this real task carries it.
        case forwarding(any URLSessionDataTaskProtocol)
        /// Its answer is playing out its latency and throughput.
        case playing(AnswerPlayer)
        case finished
    }

    private struct State: ExchangeCancellation.Holder {
        var resumeCount = 0
        var cancelWasCalled = false
        var phase = Phase.waiting
        var request: URLRequest?
        var simulatesLatency = false
        var receiver: Receiver?
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

    /// Delivers the answer, the first time only: inside this call, or as its latency and
    /// throughput play out when the session simulates them, or when a held response is released.
    public func resume() {
        let action = state.withLock { state -> Action in
            state.resumeCount += 1
            guard state.resumeCount == 1 else { return .none }
            return start(&state)
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
            case .waiting, .ready, .playing:
                if case .playing(let player) = state.phase { player.stop() }
                state.phase = .finished
                var userInfo: [String: Any] = [:]
                if let url = state.request?.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
                let request = state.request ?? URLRequest(url: URL(fileURLWithPath: "/"))
                return .complete(Answer(Delivery(request: request, error: URLError(.cancelled, userInfo: userInfo))), state.receiver)
            }
        }
        perform(action)
    }

    // MARK: Engine

    /// Hands the task out for `request`: `completion` receives the whole answer once the task
    /// is resumed (and its time has played out, when the session simulates it).
    func begin(
        _ request: URLRequest, simulatingLatency: Bool, completion: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) {
        begin(request, simulatingLatency: simulatingLatency, receiver: .whole(completion))
    }

    /// Hands the task out for `request`, for a stream that plays the answer itself: it gets the
    /// answer as soon as the task is resumed.
    func begin(_ request: URLRequest, streaming: @escaping @Sendable (Answer) -> Void) {
        begin(request, simulatingLatency: false, receiver: .stream(streaming))
    }

    private func begin(_ request: URLRequest, simulatingLatency: Bool, receiver: Receiver) {
        state.withLock { state in
            state.request = request
            state.simulatesLatency = simulatingLatency
            state.receiver = receiver
        }
    }

    /// The session's decision: delivered now if the task runs, or when it is resumed.
    func receive(_ result: ExchangeResult, passthroughSession: any URLSessionProtocol) {
        switch result {
        case .answer(let answer):
            receive(answer)
        case .passthrough(let request):
            let receiver = state.withLock { $0.receiver }
            let forwarded = passthroughSession.makeDataTask(with: request) { data, response, error in
                switch receiver {
                case .whole(let completion)?: completion(data, response, error)
                case .stream(let stream)?: stream(Answer(Delivery(request: request, arguments: (data, response, error))))
                case nil: break
                }
            }
            let action = state.withLock { state -> Action in
                guard case .waiting = state.phase else { return .none }  // cancelled meanwhile
                state.phase = .forwarding(forwarded)
                return state.resumeCount > 0 ? .resumeForwarded(forwarded) : .none
            }
            perform(action)
        }
    }

    private func receive(_ answer: Answer) {
        let action = state.withLock { state -> Action in
            guard case .waiting = state.phase else { return .none }  // cancelled meanwhile
            state.phase = .ready(answer)
            return state.resumeCount > 0 ? start(&state) : .none
        }
        perform(action)
    }

    private enum Action {
        case none
        /// Hands the answer over whole (or to the stream), then counts it delivered.
        case complete(Answer, Receiver?)
        /// Plays the answer's time out, then hands it over whole.
        case play(AnswerPlayer)
        case resumeForwarded(any URLSessionDataTaskProtocol)
        case cancelForwarded(any URLSessionDataTaskProtocol)
    }

    /// What starting a resumed task means in its phase (called inside the lock).
    private func start(_ state: inout State) -> Action {
        switch state.phase {
        case .ready:
            // Moved out of the phase, not copied.
            var phase = Phase.finished
            swap(&phase, &state.phase)
            guard case .ready(let answer) = consume phase else { return .none }
            guard state.simulatesLatency, case .whole = state.receiver, answer.timing.toEnd > 0 else {
                return .complete(answer, state.receiver)
            }
            // Not played yet: only once the lock is let go.
            let player = AnswerPlayer(answer, waitsOutTime: true) { [self] step in played(step, of: answer) }
            state.phase = .playing(player)
            return .play(player)
        case .forwarding(let task):
            return .resumeForwarded(task)
        case .waiting, .playing, .finished:
            return .none
        }
    }

    private func perform(_ action: Action) {
        switch action {
        case .none:
            break
        case .complete(let answer, let receiver):
            switch receiver {
            case .whole(let completion)?:
                let (data, response, error) = answer.completion
                completion(data, response, error)
                answer.noteDelivered()
            case .stream(let stream)?:
                // The stream plays it, and counts it delivered at its end.
                stream(answer)
            case nil:
                break
            }
        case .play(let player):
            player.play()
        case .resumeForwarded(let task):
            task.resume()
        case .cancelForwarded(let task):
            task.cancel()
        }
    }

    /// A step of an answer played out for a caller of the whole body: at its end, the whole
    /// answer is handed over, unless the task was cancelled meanwhile.
    private func played(_ step: Answer.Step, of answer: Answer) -> AnswerPlayer.Flow {
        switch step {
        case .end, .fail:
            let receiver = state.withLock { state -> Receiver? in
                guard case .playing = state.phase else { return nil }
                state.phase = .finished
                return state.receiver
            }
            guard case .whole(let completion)? = receiver else { return .stop }
            let (data, response, error) = answer.completion
            completion(data, response, error)
            return .more
        default:
            return state.withLock { state in
                if case .playing = state.phase { return .more }
                return .stop
            }
        }
    }
}
