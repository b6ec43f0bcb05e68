import Foundation

/// A step every request of a client passes through: it can change the outgoing request
/// (asynchronously, for example to add a token) and, after each attempt, ask for another one.
///
/// Both methods have default implementations, so an interceptor implements only what it needs.
/// Interceptors run in the order given to the client; the first one that asks for a retry wins.
/// A thrown error ends the request with ``HTTPClientError/interceptorFailed(_:)``.
public protocol Interceptor: Sendable {
    /// Returns the request to send for attempt number `attempt` (1-based).
    func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest

    /// Looks at the outcome of an attempt and says whether to send the request again.
    func retry(
        _ request: URLRequest, after result: Result<HTTPClient.Response<Data>, HTTPClientError>, attempt: Int
    ) async throws -> RetryDecision
}

extension Interceptor {
    public func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest { request }

    public func retry(
        _ request: URLRequest, after result: Result<HTTPClient.Response<Data>, HTTPClientError>, attempt: Int
    ) async throws -> RetryDecision {
        .doNotRetry
    }
}
