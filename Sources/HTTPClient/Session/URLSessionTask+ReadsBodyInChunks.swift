import Foundation

extension URLSessionTask {
    /// The `taskDescription` that `URLSession`'s ``URLSessionProtocol/chunks(for:)`` gives its
    /// task.
    static let chunksTaskDescription = "HTTPClient.chunks(for:)"

    /// Whether this task was started by `URLSession`'s ``URLSessionProtocol/chunks(for:)``, which
    /// reads the body as it arrives: part of the contract of ``URLSessionProtocol`` for anyone
    /// who serves its requests with a `URLProtocol`.
    ///
    /// Such a protocol (the stubs' `URLProtocol`, or one of your own) may call
    /// `urlProtocol(_:didLoad:)` once per piece of the body only for a task that reads in
    /// chunks. Any other task may be a completion-handler task, which on Linux keeps only the
    /// last piece it is given (each `didLoad` replaces the data before it): give it the whole
    /// body in one call. The mark is the task's `taskDescription`; a caller that replaces it
    /// removes the mark.
    public var readsBodyInChunks: Bool { taskDescription == Self.chunksTaskDescription }
}
