import HTTPClient

/// Tells an exchange that its task was cancelled (a `MockURLSessionDataTask` cancelled, a
/// URLProtocol stopped), so what is still to come has no effect: a held response released
/// later follows no redirect and stores no cookie, and the request leaves its gate's held list.
///
/// A struct around one lock box, whose copies share it: one allocation a task, where a class
/// holding the box would cost two. The URLProtocol transport keeps its loading state in the
/// same box (``withLoadingState(_:)``), so a request through it makes one box, not two.
package struct ExchangeCancellation: Sendable {
    private struct State {
        var isCancelled = false
        var handlers: [@Sendable () -> Void] = []
        /// Used by `StubURLProtocol` only; a few words for the other transports.
        var loading = URLProtocolLoadingState()
    }

    private let state = Locked(State())

    package init() {}

    package var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Cancels, once: runs the handlers registered so far.
    package func cancel() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.isCancelled else { return [] }
            state.isCancelled = true
            defer { state.handlers = [] }
            return state.handlers
        }
        for handler in handlers { handler() }
    }

    /// Runs `body` with the URLProtocol transport's loading state, under the cancellation's lock.
    func withLoadingState<Result>(_ body: (inout URLProtocolLoadingState) -> Result) -> Result {
        state.withLock { body(&$0.loading) }
    }

    /// Runs `handler` on cancellation: at once when already cancelled.
    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let cancelled = state.withLock { state in
            if !state.isCancelled { state.handlers.append(handler) }
            return state.isCancelled
        }
        if cancelled { handler() }
    }
}
