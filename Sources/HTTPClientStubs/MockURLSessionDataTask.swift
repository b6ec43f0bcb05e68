import Foundation
import HTTPClient

/// The task a ``MockURLSession`` hands out. It records how it was used and delivers its canned
/// result synchronously inside ``resume()``, on the caller's thread, exactly once.
///
/// Like a real task, it never completes if it is never resumed, and ``cancel()`` before it has
/// completed delivers `URLError(.cancelled)`.
public final class MockURLSessionDataTask: URLSessionDataTaskProtocol, Sendable {
    private struct Pending {
        let request: URLRequest?
        let arguments: (Data?, URLResponse?, (any Error)?)
        let delay: TimeInterval
        let completion: @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    }

    private struct State {
        var resumeCount = 0
        var cancelWasCalled = false
        var pending: Pending?
        var isScheduled = false
        var request: URLRequest?
    }

    // Pending holds non-Sendable tuples only inside the lock; they are handed out once.
    private let state = Locked(State())

    /// Creates a task. Assign it to ``MockURLSession/nextDataTask`` to give it to the next request.
    public init() {}

    /// Whether ``resume()`` was called at least once.
    public var resumeWasCalled: Bool { resumeCount > 0 }

    /// How many times ``resume()`` was called.
    public var resumeCount: Int { state.withLock { $0.resumeCount } }

    /// Whether ``cancel()`` was called.
    public var cancelWasCalled: Bool { state.withLock { $0.cancelWasCalled } }

    /// The request this task was created for, once a session has handed it out.
    public var originalRequest: URLRequest? { state.withLock { $0.request } }

    /// Delivers the canned result, the first time only: inside this call, or after the
    /// response's latency when the session simulates it.
    public func resume() {
        let pending = state.withLock { state -> Pending? in
            state.resumeCount += 1
            guard let pending = state.pending, !state.isScheduled else { return nil }
            if pending.delay > 0 {
                state.isScheduled = true
            } else {
                state.pending = nil
            }
            return pending
        }
        guard let pending else { return }
        guard pending.delay > 0 else {
            pending.completion(pending.arguments.0, pending.arguments.1, pending.arguments.2)
            return
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + pending.delay) { [self] in
            let due = state.withLock { state -> Pending? in
                defer { state.pending = nil }
                return state.pending
            }
            // nil when cancel() delivered first.
            guard let due else { return }
            due.completion(due.arguments.0, due.arguments.1, due.arguments.2)
        }
    }

    /// Delivers `URLError(.cancelled)` if the task has not completed yet.
    public func cancel() {
        let pending = state.withLock { state -> Pending? in
            state.cancelWasCalled = true
            defer { state.pending = nil }
            return state.pending
        }
        guard let pending else { return }
        var userInfo: [String: Any] = [:]
        if let url = pending.request?.url {
            userInfo[NSURLErrorFailingURLErrorKey] = url
        }
        pending.completion(nil, nil, URLError(.cancelled, userInfo: userInfo))
    }

    /// Makes this task deliver the registry's answer when resumed: the one dispatch every
    /// synchronous session (``MockURLSession``, ``CassetteSession``) uses. A pass-through
    /// resolution is the caller's to forward; here it fails as unanswerable.
    func answer(
        _ resolution: StubRegistry.Resolution, simulatingLatency: Bool,
        completion: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) {
        switch resolution {
        case .respond(let response, let request, _):
            let arguments = response.completionArguments(for: request.urlRequest)
            let delay = simulatingLatency ? response.latency + response.downloadTime(bodySize: arguments.0?.count ?? 0) : 0
            prepare(request: request.urlRequest, arguments: arguments, delay: delay, completion: completion)
        case .unmatched(let error):
            prepare(request: error.report.request.urlRequest, arguments: (nil, nil, error), delay: 0, completion: completion)
        case .failed(let error):
            prepare(request: nil, arguments: (nil, nil, error), delay: 0, completion: completion)
        case .passthrough(let request):
            prepare(request: request, arguments: (nil, nil, URLError(.unsupportedURL)), delay: 0, completion: completion)
        }
    }

    /// Called by the session: the next ``resume()`` delivers `arguments` to `completion`.
    private func prepare(
        request: URLRequest?,
        arguments: (Data?, URLResponse?, (any Error)?),
        delay: TimeInterval,
        completion: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) {
        state.withLock { state in
            state.request = request
            state.isScheduled = false
            state.pending = Pending(request: request, arguments: arguments, delay: delay, completion: completion)
        }
    }
}
