import Foundation

/// A small, typed HTTP client over any ``URLSessionProtocol``.
///
/// ```swift
/// let client = HTTPClient(baseURL: URL(string: "https://api.example.com/v2"))
/// let user: User = try await client.send(.get("users/1")).value
/// ```
///
/// In tests, inject a `MockURLSession` (from `HTTPClientMocks`): the completion API then
/// completes before the call returns.
public struct HTTPClient: Sendable {
    /// The session every request goes through.
    public var session: any URLSessionProtocol
    /// Paths given to ``RequestTarget/path(_:)`` are appended to this URL, keeping its path.
    public var baseURL: URL?
    /// Headers sent with every request; a request's own headers replace these by name.
    public var headers: HTTPHeaders
    /// The timeout of requests that do not set their own; `nil` keeps `URLRequest`'s 60 s.
    public var timeout: TimeInterval?
    /// Which responses count as success; 2xx by default.
    public var validation: Validation
    /// Encodes ``Body/json(_:)`` bodies. Reused across requests (never created per call).
    public var encoder: JSONEncoder
    /// Decodes the value of typed requests (``Request`` of a `Decodable`). Reused across requests.
    public var decoder: JSONDecoder
    /// Steps every request passes through, in order, before the request's own
    /// (``Request/interceptors``); a request can ask to go without them.
    public var interceptors: [any Interceptor]
    /// When to send a failed request again; `nil` (the default) never retries.
    public var retryPolicy: RetryPolicy?
    /// How the client waits between attempts; `.live` waits for real.
    public var scheduler: any RetryScheduler
    /// Called after every attempt with what happened, for logging and metrics.
    public var onEvent: (@Sendable (HTTPClientEvent) -> Void)?
    /// What events hide: credentials in URLs and headers (``Redaction/standard`` by default).
    public var redaction: Redaction = .standard

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - session: The session to send requests with; `URLSession.shared` by default.
    ///   - baseURL: The URL that relative paths are appended to.
    ///   - headers: Headers for every request.
    ///   - timeout: The default per-request timeout.
    ///   - validation: Which responses are successes; 2xx by default.
    ///   - encoder: The JSON encoder for request bodies.
    ///   - decoder: The JSON decoder for responses.
    ///   - interceptors: Steps every request passes through, in order.
    ///   - retryPolicy: When to retry; `nil` never retries.
    ///   - scheduler: How to wait between attempts.
    ///   - onEvent: Called after every attempt (credentials redacted).
    public init(
        session: any URLSessionProtocol = URLSession.shared,
        baseURL: URL? = nil,
        headers: HTTPHeaders = [:],
        timeout: TimeInterval? = nil,
        validation: Validation = .successfulStatusCodes,
        encoder: JSONEncoder = JSONEncoder(),
        decoder: JSONDecoder = JSONDecoder(),
        interceptors: [any Interceptor] = [],
        retryPolicy: RetryPolicy? = nil,
        scheduler: any RetryScheduler = .live,
        onEvent: (@Sendable (HTTPClientEvent) -> Void)? = nil
    ) {
        self.interceptors = interceptors
        self.retryPolicy = retryPolicy
        self.scheduler = scheduler
        self.onEvent = onEvent
        self.session = session
        self.baseURL = baseURL
        self.headers = headers
        self.timeout = timeout
        self.validation = validation
        self.encoder = encoder
        self.decoder = decoder
    }

    // MARK: Sending

    /// Sends `request` and calls `completion` exactly once with the response (its value decoded
    /// as the request asks) or the error.
    ///
    /// Without interceptors and retries, a synchronous session (such as `MockURLSession`)
    /// completes before this returns; with them, the request runs in a Swift `Task`.
    ///
    /// - Parameters:
    ///   - request: What to send, and what its body decodes to.
    ///   - completion: Called once with the response or the error.
    /// - Returns: The started task; cancel it to end the request with ``HTTPClientError/cancelled``.
    @discardableResult
    public func send<Value>(
        _ request: Request<Value>,
        completion: @escaping @Sendable (Result<Response<Value>, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        if needsPipeline(request) {
            return PipelineTask(Task { completion(await run(request)) })
        }
        let urlRequest: URLRequest
        do {
            (urlRequest, _) = try makeURLRequest(for: request)
        } catch {
            completion(.failure(error))
            return FinishedTask()
        }
        let decoder = self.decoder
        let decoding = request.decoding
        return startAttempt(urlRequest, validation: request.validation ?? validation, attempt: 1, delegate: request.delegate) { result in
            completion(result.flatMap { Self.decoded($0, decoding, decoder) })
        }
    }

    /// The typed response of a raw one that passed validation.
    static func decoded<Value>(
        _ response: Response<Data>, _ decoding: Decoding<Value>, _ decoder: JSONDecoder
    ) -> Result<Response<Value>, HTTPClientError> {
        Result { () throws(HTTPClientError) in response.replacingValue(with: try decoding.decode(response, decoder)) }
    }

    /// Interprets what a session delivered for `request`. One place, shared by every API.
    static func result(
        data: Data?, response: URLResponse?, error: (any Error)?, request: URLRequest, validation: Validation
    ) -> Result<Response<Data>, HTTPClientError> {
        if let error {
            return .failure(HTTPClientError(transportError: error, url: request.url))
        }
        return Self.response(response, body: data, request: request).flatMap { response in
            validation.rejection(of: response).map { .failure($0.error(for: response)) } ?? .success(response)
        }
    }

    /// The typed response of what a session answered to `request`, before validation: its URL
    /// falls back to the request's; anything but an HTTP response is
    /// ``HTTPClientError/nonHTTPResponse(url:)``. For a stream or a download, `body` is `nil` and
    /// the response is the head alone.
    static func response(_ response: URLResponse?, body: Data?, request: URLRequest) -> Result<Response<Data>, HTTPClientError> {
        guard let httpResponse = response as? HTTPURLResponse else {
            return .failure(.nonHTTPResponse(url: response?.url ?? request.url))
        }
        var typed = Response(httpResponse, body: body, request: request)
        if typed.url == nil { typed.url = request.url }
        return .success(typed)
    }
}
