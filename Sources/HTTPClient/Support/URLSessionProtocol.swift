import Foundation

// The one place that knows URLSession lives in a separate module on Linux. Re-exporting it
// means every file of this module, and every client of it, sees URLSession, URLRequest and
// URLResponse with a plain `import Foundation` + `import HTTPClient`.
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif

/// The one thing ``HTTPClient`` needs from a session: a data task for a request.
///
/// `URLSession` conforms through an extension in this module, so production code passes a real
/// session while tests inject `MockURLSession` (or any type of their own).
///
/// The requirement is deliberately *not* spelled `dataTask(with:completionHandler:)`: if it
/// were, `URLSession`'s conformance would have to call a method with the same signature as
/// itself, and a small mistake in the return type turns that into infinite recursion.
public protocol URLSessionProtocol: Sendable {
    /// Creates, but does not start, a task that loads `request` and calls `completionHandler`
    /// once with the body, the response, or the error.
    func makeDataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any URLSessionDataTaskProtocol
}

extension URLSession: URLSessionProtocol {
    /// Forwards to `dataTask(with:completionHandler:)`.
    public func makeDataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any URLSessionDataTaskProtocol {
        let task: URLSessionDataTask = dataTask(with: request, completionHandler: completionHandler)
        return task
    }
}

extension URLSessionDataTask: URLSessionDataTaskProtocol {}
