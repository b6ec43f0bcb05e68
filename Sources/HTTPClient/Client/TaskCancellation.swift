import Foundation

/// Bridges Swift task cancellation to a data task that may not exist yet when the
/// cancellation handler runs: whichever of `register` and `cancel` comes second cancels it.
/// `package`: `MockURLSession` (HTTPClientStubs) bridges cancellation the same way.
package final class TaskCancellation: Sendable {
    /// A bridge with no task yet.
    /// `package`: `MockURLSession` (HTTPClientStubs) makes one per streamed request.
    package init() {}

    private let state = Locked<(task: (any URLSessionDataTaskProtocol)?, isCancelled: Bool)>((nil, false))

    /// Remembers `task`, or cancels it at once when ``cancel()`` came first.
    /// `package`: `MockURLSession` (HTTPClientStubs) registers the task it started.
    package func register(_ task: any URLSessionDataTaskProtocol) {
        let cancelNow = state.withLock { state in
            state.task = task
            return state.isCancelled
        }
        if cancelNow { task.cancel() }
    }

    /// Cancels the registered task, or the one registered next.
    /// `package`: `MockURLSession` (HTTPClientStubs) calls it from its cancellation handler.
    package func cancel() {
        let task = state.withLock { state in
            state.isCancelled = true
            return state.task
        }
        task?.cancel()
    }
}
