import Foundation

/// A step every request of a client passes through: it can change the outgoing request
/// (asynchronously, for example to add a token) and, after each attempt, ask for another one.
///
/// Every requirement has a default implementation, so an interceptor implements only what it
/// needs. Interceptors run in the order given to the client; the first one that asks for a retry
/// (within its ``maximumAttempts``) wins. A thrown error ends the request with
/// ``HTTPClientError/interceptorFailed(_:)``.
///
/// A retry an interceptor asks for is sent whatever the method (a POST included): the interceptor
/// knows why it asks, where the ``RetryPolicy`` retries only what is safe to repeat. It is
/// limited by the interceptor's own ``maximumAttempts``, never silently: a retry that limit
/// stops ends the request with ``HTTPClientError/retryLimitReached(attempts:last:)``.
public protocol Interceptor: Sendable {
    /// Attempts in all, the first included, that this interceptor's retries may take a request
    /// to: a retry it asks for after attempt `maximumAttempts` is not sent. 3 by default.
    var maximumAttempts: Int { get }

    /// Returns the request to send for attempt number `attempt` (1-based).
    func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest

    /// Looks at the outcome of an attempt and says whether to send the request again.
    func retry(
        _ request: URLRequest, after result: Result<HTTPClient.Response<Data>, HTTPClientError>, attempt: Int
    ) async throws -> RetryDecision
}

extension Interceptor {
    /// 3: up to two retries.
    public var maximumAttempts: Int { 3 }

    public func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest { request }

    public func retry(
        _ request: URLRequest, after result: Result<HTTPClient.Response<Data>, HTTPClientError>, attempt: Int
    ) async throws -> RetryDecision {
        .doNotRetry
    }
}
