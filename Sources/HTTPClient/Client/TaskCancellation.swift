import Foundation

/// Bridges Swift task cancellation to a data task that may not exist yet when the
/// cancellation handler runs: whichever of `register` and `cancel` comes second cancels it.
/// `package`: `MockURLSession` and the stubs' waits (HTTPClientStubs) bridge cancellation the same way.
package final class TaskCancellation: Sendable {
    package init() {}

    private let state = Locked<(task: (any URLSessionDataTaskProtocol)?, isCancelled: Bool)>((nil, false))

    package func register(_ task: any URLSessionDataTaskProtocol) {
        let cancelNow = state.withLock { state in
            state.task = task
            return state.isCancelled
        }
        if cancelNow { task.cancel() }
    }

    package func cancel() {
        let task = state.withLock { state in
            state.isCancelled = true
            return state.task
        }
        task?.cancel()
    }
}
