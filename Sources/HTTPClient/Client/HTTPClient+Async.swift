import Foundation

extension HTTPClient {
    /// Sends `request` and returns the response.
    ///
    /// Cancelling the calling Swift `Task` cancels the data task; the call then throws
    /// ``HTTPClientError/cancelled``.
    public func send(_ request: Request) async throws(HTTPClientError) -> Response {
        try await run(request).get()
    }

    /// Sends `request` and decodes a successful response body as `Value`.
    public func send<Value: Decodable & Sendable>(_ request: Request, as type: Value.Type) async throws(HTTPClientError) -> Value {
        try await send(Self.acceptingJSON(request)).decode(Value.self, using: decoder)
    }
}

/// Bridges Swift task cancellation to a data task that may not exist yet when the
/// cancellation handler runs: whichever of `register` and `cancel` comes second cancels it.
final class TaskCancellation: Sendable {
    private let state = Locked<(task: (any URLSessionDataTaskProtocol)?, isCancelled: Bool)>((nil, false))

    func register(_ task: any URLSessionDataTaskProtocol) {
        let cancelNow = state.withLock { state in
            state.task = task
            return state.isCancelled
        }
        if cancelNow { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { state in
            state.isCancelled = true
            return state.task
        }
        task?.cancel()
    }
}
