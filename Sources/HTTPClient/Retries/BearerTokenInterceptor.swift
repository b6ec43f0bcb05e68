import Foundation

/// Adds `Authorization: Bearer <token>` to every request and, when a response is 401, refreshes
/// the token and sends the request again with the new one, whatever the method (a 401 is
/// refused before the server acts, so a POST is safe to send again).
///
/// The rules:
/// - A 401 refreshes at whichever attempt it comes (after a 503 the retry policy retried, say),
///   once per request: if the request sent with the new token gets a 401 too, that 401 is what
///   the caller gets.
/// - Requests that got a 401 with the same token share one refresh, successful or not: the first
///   starts it, the others wait for its result; a request sent with an older token than the
///   current one is simply sent again with the current one.
/// - A refresh that fails is remembered for the token it was tried with: for
///   `retryingAFailedRefreshAfter` (10 seconds unless you say), a 401 for that token comes back
///   at once, without asking the auth server again. So a burst of 401s after a failed refresh
///   asks it at most once more, and a failing auth server is asked at most once per interval.
///
/// ```swift
/// let auth = BearerTokenInterceptor(token: "expired") {
///     try await authService.refreshToken()   // returns the new token
/// }
/// let client = HTTPClient(session: session, interceptors: [auth])
/// ```
public final class BearerTokenInterceptor: Interceptor {
    private let tokens: TokenStore

    /// - Parameters:
    ///   - token: The current token, or `nil` before signing in.
    ///   - retryingAFailedRefreshAfter: How long a failed refresh is the answer for its token.
    ///   - refresh: Fetches a new token; a thrown error means the refresh failed.
    public init(
        token: String?, retryingAFailedRefreshAfter: Duration = .seconds(10), refresh: @escaping @Sendable () async throws -> String
    ) {
        tokens = TokenStore(token: token, holdOff: retryingAFailedRefreshAfter, refresh: refresh)
    }

    /// The token requests are sent with now.
    public var token: String? {
        get async { await tokens.token }
    }

    /// 1: a request is sent again once, with a refreshed token.
    public var maximumRetries: Int { 1 }

    public func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest {
        guard let token = await tokens.token else { return request }
        let field = HTTPHeaders.Field(name: "Authorization", value: "Bearer \(token)")
        // Foundation on Linux drops a value with a line break without a word: the request
        // would go out with no token, and come back a 401 with no reason given.
        try HTTPClient.check(field)
        var request = request
        request.setValue(field.value, forHTTPHeaderField: field.name)
        return request
    }

    public func retry(
        _ request: URLRequest, after result: Result<HTTPClient.Response<Data>, HTTPClientError>, attempt: Int
    ) async throws -> RetryDecision {
        guard case .failure(let error) = result, error.response?.statusCode == 401 else { return .doNotRetry }
        let sentToken = request.value(forHTTPHeaderField: "Authorization").map { String($0.dropFirst("Bearer ".count)) }
        return await tokens.refresh(replacing: sentToken) ? .retry : .doNotRetry
    }
}

/// Holds the token; runs one refresh at a time and remembers the last one that failed.
private actor TokenStore {
    private(set) var token: String?
    private let refreshToken: @Sendable () async throws -> String
    private let holdOff: Duration
    private var inFlight: Task<String, any Error>?
    /// The token the last refresh was tried for, when that refresh failed, and when.
    private var failed: (token: String?, at: ContinuousClock.Instant)?

    init(token: String?, holdOff: Duration, refresh: @escaping @Sendable () async throws -> String) {
        self.token = token
        self.holdOff = holdOff
        refreshToken = refresh
    }

    /// Whether a request that got a 401 with `rejected` should be sent again (with ``token``).
    func refresh(replacing rejected: String?) async -> Bool {
        // A refresh under way decides for every 401, whichever token it came with.
        if let inFlight { return await outcome(of: inFlight, replacing: rejected) }
        // Another request refreshed already.
        if token != rejected { return token != nil }
        if let failed, failed.token == rejected, ContinuousClock.now - failed.at < holdOff { return false }
        let refreshToken = self.refreshToken
        let task = Task { try await refreshToken() }
        inFlight = task
        return await outcome(of: task, replacing: rejected)
    }

    private func outcome(of task: Task<String, any Error>, replacing rejected: String?) async -> Bool {
        let fresh = try? await task.value
        if inFlight == task {
            inFlight = nil
            if let fresh {
                token = fresh
                failed = nil
            } else {
                failed = (token, .now)
            }
        }
        return fresh != nil
    }
}
