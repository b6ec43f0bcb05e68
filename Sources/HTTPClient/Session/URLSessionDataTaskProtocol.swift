import Foundation

/// A task that a ``URLSessionProtocol`` created: something that can be started and cancelled.
///
/// `URLSessionDataTask` conforms, and so does `MockURLSessionDataTask` in `HTTPClientStubs`.
public protocol URLSessionDataTaskProtocol: AnyObject, Sendable {
    /// Starts the task (or resumes it if it was suspended).
    func resume()
    /// Cancels the task; its completion handler receives `URLError(.cancelled)` if it has not
    /// completed yet.
    func cancel()
}
