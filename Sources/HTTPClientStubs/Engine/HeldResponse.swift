import Foundation
import HTTPClient

/// A gate for responses: requests whose answer is held by it wait until the test releases it,
/// so the test can look at the code under test while its request is in flight (a spinner, a
/// disabled button, a second tap).
///
/// ```swift
/// let feed = HeldResponse()
/// stubs.stub(.get, "/feed").respond(.json(raw: "[]").held(by: feed))
/// model.refresh()                       // starts the request
/// try await feed.waitUntilHolding()     // it has arrived and is waiting
/// #expect(model.isLoading)
/// feed.release()                        // the response is delivered now
/// ```
///
/// Once released (or failed) the gate stays open: later requests are answered at once. A held
/// request ignores timeouts: the test decides when it ends. ``StubRegistry/verify(fileID:filePath:line:column:)`` reports
/// requests still held. A request whose task is cancelled while held leaves the gate: releasing
/// it later has no effect (no redirect followed, no cookie stored).
public final class HeldResponse: Sendable {
    private enum Gate: Sendable {
        case closed
        case released
        case failed(any Error)
    }

    private struct Waiting: Sendable {
        let id: Int
        let request: RecordedRequest
        let resume: @Sendable (_ error: (any Error)?) -> Void
    }

    private struct State: Sendable {
        var gate = Gate.closed
        var waiting: [Waiting] = []
        var nextID = 0
        /// The latest requests held, released or not: what a wait that runs out lists.
        var recent: [(id: Int, request: RecordedRequest)] = []
    }

    private let state = Locked(State())
    private let holding = Milestones()
    /// A name for reports.
    package let name: String

    /// - Parameter name: How reports refer to it; by default `held response`.
    public init(_ name: String = "held response") {
        self.name = name
    }

    /// The requests waiting on this gate now.
    package var heldRequests: [RecordedRequest] { state.withLock { $0.waiting.map(\.request) } }

    /// Delivers every held response, and lets every later one through at once. On a
    /// `MockURLSession` the completion handlers run inside this call.
    public func release() {
        open(.released)
    }

    /// Fails every held request with `error` instead of its response, and every later one.
    public func fail(with error: any Error) {
        open(.failed(error))
    }

    /// Returns once `count` requests have been held (in all), so the test knows the code under
    /// test is waiting.
    ///
    /// Throws ``StubWaitError`` after `timeout`, 10 seconds by default (see ``StubWaitError``
    /// for why, and for heavily parallel runs), listing the requests it held and whether each is
    /// held still.
    public func waitUntilHolding(_ count: Int = 1, timeout: Duration = .seconds(10)) async throws {
        try await holding.wait(until: count, timeout: timeout, waitingFor: "requests held by \(name)") { [self] in
            let (recent, waiting) = state.withLock { ($0.recent, Set($0.waiting.map(\.id))) }
            guard !recent.isEmpty else {
                return ["No request reached it: does a stub answer with .held(by:) it, and is that stub's request sent?"]
            }
            return ["It held:"]
                + recent.map { "  \($0.request.redactedLine(.standard)): \(waiting.contains($0.id) ? "held now" : "let go")" }
        }
    }

    // MARK: Engine

    /// Calls `resume` when the gate opens (at once if it is open): with `nil` to deliver the
    /// response, or with the error to deliver instead. A request whose exchange is cancelled
    /// while it waits leaves the gate, and `resume` is never called for it.
    func hold(
        _ request: RecordedRequest, cancellation: ExchangeCancellation, resume: @escaping @Sendable ((any Error)?) -> Void
    ) {
        let (gate, id) = state.withLock { state -> (Gate, Int) in
            let id = state.nextID
            state.nextID += 1
            if case .closed = state.gate {
                state.waiting.append(Waiting(id: id, request: request, resume: resume))
                state.recent = (state.recent + [(id, request)]).suffix(Stub.listedRequests)
            }
            return (state.gate, id)
        }
        switch gate {
        case .closed:
            // Withdrawn on cancellation from before it counts: a test that cancels the request
            // as soon as its wait for the hold returns finds it gone from the gate.
            cancellation.onCancel { [weak self] in self?.withdraw(id) }
            holding.advance()
        case .released: resume(nil)
        case .failed(let error): resume(error)
        }
    }

    private func withdraw(_ id: Int) {
        state.withLock { state in state.waiting.removeAll { $0.id == id } }
    }

    private func open(_ gate: Gate) {
        let waiting = state.withLock { state -> [Waiting] in
            state.gate = gate
            defer { state.waiting = [] }
            return state.waiting
        }
        let error: (any Error)? = if case .failed(let error) = gate { error } else { nil }
        for request in waiting { request.resume(error) }
    }
}
