import Foundation

/// A step every request of a client passes through: it can change the outgoing request
/// (asynchronously, for example to add a token) and, after each attempt, ask for another one.
///
/// Every requirement has a default implementation, so an interceptor implements only what it
/// needs. Interceptors run in the order given to the client; the first one that asks for a retry
/// wins. A thrown error ends the request with ``HTTPClientError/interceptorFailed(_:)``.
///
/// A retry an interceptor asks for is sent whatever the method (a POST included): the interceptor
/// knows why it asks, where the ``RetryPolicy`` retries only what is safe to repeat. Each
/// interceptor has its own budget per request, ``maximumRetries``, counted whichever attempt it
/// is asked after: once a request has had that many retries from it, it is no longer asked about
/// that request, and what comes back goes to the next interceptor and the retry policy, as
/// after `.doNotRetry`.
public protocol Interceptor: Sendable {
    /// How many times this interceptor may have one request sent again. 2 by default.
    var maximumRetries: Int { get }

    /// Returns the request to send for attempt number `attempt` (1-based).
    func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest

    /// Looks at the outcome of attempt number `attempt` (1-based) and says whether to send the
    /// request again. Not called once this request has had ``maximumRetries`` retries from this
    /// interceptor.
    func retry(
        _ request: URLRequest, after result: Result<HTTPClient.Response<Data>, HTTPClientError>, attempt: Int
    ) async throws -> RetryDecision
}

extension Interceptor {
    /// 2: the request and up to two retries.
    public var maximumRetries: Int { 2 }

    public func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest { request }

    public func retry(
        _ request: URLRequest, after result: Result<HTTPClient.Response<Data>, HTTPClientError>, attempt: Int
    ) async throws -> RetryDecision {
        .doNotRetry
    }
}
