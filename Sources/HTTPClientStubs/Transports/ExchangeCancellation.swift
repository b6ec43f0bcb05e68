import Foundation
import HTTPClient

/// Cancels an exchange from its transport (a `MockURLSessionDataTask` cancelled, a
/// URLProtocol stopped), so what is still to come has no effect: a held response released
/// later follows no redirect and stores no cookie, and the request leaves its gate's held list.
///
/// A struct whose copies share one store: a lock box of its own (one allocation), or the
/// locked state of the task it belongs to (``ExchangeCancellation/Store``), which
/// then allocates nothing for it.
package struct ExchangeCancellation: Sendable {
    /// Whether the exchange was cancelled, and what to run when it is.
    package struct State: Sendable {
        var isCancelled = false
        var handlers: [@Sendable () -> Void] = []

        package init() {}
    }

    /// Where the state lives, under a lock: `body` runs with exclusive access to it.
    package protocol Store: Sendable {
        func withCancellationState<Result>(_ body: (inout State) -> Result) -> Result
    }

    /// A transport's locked state that keeps the cancellation's beside its own: a `Locked` box
    /// of it is a ``Store``.
    package protocol Holder: Sendable {
        var cancellation: State { get set }
    }

    /// The state of a cancellation with a box of its own.
    private struct Alone: Holder {
        var cancellation = State()
    }

    private let store: any Store

    /// A cancellation with a lock box of its own.
    package init() {
        store = Locked(Alone())
    }

    /// A cancellation kept in `store` (a task's own locked state).
    package init(sharing store: any Store) {
        self.store = store
    }

    package var isCancelled: Bool { store.withCancellationState { $0.isCancelled } }

    /// Cancels, once: runs the handlers registered so far.
    package func cancel() {
        let handlers = store.withCancellationState { state -> [@Sendable () -> Void] in
            guard !state.isCancelled else { return [] }
            state.isCancelled = true
            defer { state.handlers = [] }
            return state.handlers
        }
        for handler in handlers { handler() }
    }

    /// Runs `handler` on cancellation: at once when already cancelled.
    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let cancelled = store.withCancellationState { state in
            if !state.isCancelled { state.handlers.append(handler) }
            return state.isCancelled
        }
        if cancelled { handler() }
    }
}

extension Locked: ExchangeCancellation.Store where Value: ExchangeCancellation.Holder {
    package func withCancellationState<Result>(_ body: (inout ExchangeCancellation.State) -> Result) -> Result {
        withLock { body(&$0.cancellation) }
    }
}
