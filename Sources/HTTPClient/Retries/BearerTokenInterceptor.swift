import Foundation

/// Adds `Authorization: Bearer <token>` to every request and, when a response is 401, refreshes
/// the token once and sends the request again with the new one, whatever the method (a 401 is
/// refused before the server acts, so a POST is safe to send again). If the refresh fails, or the
/// new token gets a 401 too, that 401 is what the caller gets.
///
/// Concurrent requests that all get 401 share ONE refresh: the first starts it, the others
/// wait for its result, and a request that was sent with an outdated token is simply retried.
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
    ///   - refresh: Fetches a new token; a thrown error means the refresh failed.
    public init(token: String?, refresh: @escaping @Sendable () async throws -> String) {
        tokens = TokenStore(token: token, refresh: refresh)
    }

    /// The token requests are sent with now.
    public var token: String? {
        get async { await tokens.token }
    }

    /// 2: the request, then once more with a refreshed token.
    public var maximumAttempts: Int { 2 }

    public func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest {
        guard let token = await tokens.token else { return request }
        var request = request
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return request
    }

    public func retry(
        _ request: URLRequest, after result: Result<HTTPClient.Response<Data>, HTTPClientError>, attempt: Int
    ) async throws -> RetryDecision {
        guard case .failure(let error) = result, error.response?.statusCode == 401, attempt == 1 else { return .doNotRetry }
        let sentToken = request.value(forHTTPHeaderField: "Authorization").map { String($0.dropFirst("Bearer ".count)) }
        return await tokens.refresh(replacing: sentToken) ? .retry : .doNotRetry
    }
}
/// Holds the token and makes sure only one refresh runs at a time.
private actor TokenStore {
    private(set) var token: String?
    private let refreshToken: @Sendable () async throws -> String
    private var inFlight: Task<String, any Error>?

    init(token: String?, refresh: @escaping @Sendable () async throws -> String) {
        self.token = token
        refreshToken = refresh
    }

    /// Returns whether a usable new token exists. `rejected` is the token the 401 was for: if
    /// the current token differs, another request already refreshed it.
    func refresh(replacing rejected: String?) async -> Bool {
        if let token, token != rejected { return true }
        let task: Task<String, any Error>
        if let inFlight {
            task = inFlight
        } else {
            let refreshToken = self.refreshToken
            task = Task { try await refreshToken() }
            inFlight = task
        }
        defer { if inFlight == task { inFlight = nil } }
        guard let fresh = try? await task.value else { return false }
        token = fresh
        return true
    }
}
