import Foundation

/// A small, typed HTTP client over any ``URLSessionProtocol``.
///
/// ```swift
/// let client = HTTPClient(baseURL: URL(string: "https://api.example.com/v2"))
/// let user = try await client.send(.get("users/1"), as: User.self)
/// ```
///
/// In tests, inject a `MockURLSession` (from `HTTPClientMocks`): the completion API then
/// completes before the call returns.
public struct HTTPClient: Sendable {
    /// The session every request goes through.
    public var session: any URLSessionProtocol
    /// Paths given to ``Request/Target/path(_:)`` are appended to this URL, keeping its path.
    public var baseURL: URL?
    /// Headers sent with every request; a request's own headers replace these by name.
    public var headers: HTTPHeaders
    /// The timeout of requests that do not set their own; `nil` keeps `URLRequest`'s 60 s.
    public var timeout: TimeInterval?
    /// Which responses count as success; 2xx by default.
    public var validation: Validation
    /// Encodes ``Body/json(_:)`` bodies. Reused across requests (never created per call).
    public var encoder: JSONEncoder
    /// Decodes responses in the `as:` APIs. Reused across requests.
    public var decoder: JSONDecoder

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
    public init(
        session: any URLSessionProtocol = URLSession.shared,
        baseURL: URL? = nil,
        headers: HTTPHeaders = [:],
        timeout: TimeInterval? = nil,
        validation: Validation = .successfulStatusCodes,
        encoder: JSONEncoder = JSONEncoder(),
        decoder: JSONDecoder = JSONDecoder()
    ) {
        self.session = session
        self.baseURL = baseURL
        self.headers = headers
        self.timeout = timeout
        self.validation = validation
        self.encoder = encoder
        self.decoder = decoder
    }

    // MARK: Sending

    /// Sends `request` and calls `completion` exactly once with the response or the error.
    ///
    /// - Returns: The started task; cancel it to end the request with ``HTTPClientError/cancelled``.
    @discardableResult
    public func send(
        _ request: Request,
        completion: @escaping @Sendable (Result<Response, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        let urlRequest: URLRequest
        do {
            urlRequest = try makeURLRequest(for: request)
        } catch {
            completion(.failure(error))
            return FinishedTask()
        }
        let validation = request.validation ?? self.validation
        let task = session.makeDataTask(with: urlRequest) { data, response, error in
            completion(Self.result(data: data, response: response, error: error,
                                   requestURL: urlRequest.url, validation: validation))
        }
        task.resume()
        return task
    }

    /// Sends `request` and decodes a successful response body as `Value`.
    @discardableResult
    public func send<Value: Decodable & Sendable>(
        _ request: Request,
        as type: Value.Type,
        completion: @escaping @Sendable (Result<Value, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        let decoder = self.decoder
        return send(Self.acceptingJSON(request)) { result in
            completion(result.flatMap { response in
                Result { () throws(HTTPClientError) in try response.decode(Value.self, using: decoder) }
            })
        }
    }

    /// Interprets what a session delivered. One place, shared by every API.
    static func result(
        data: Data?, response: URLResponse?, error: (any Error)?, requestURL: URL?, validation: Validation
    ) -> Result<Response, HTTPClientError> {
        if let error {
            return .failure(HTTPClientError(transportError: error, url: requestURL))
        }
        guard let httpResponse = response as? HTTPURLResponse else {
            return .failure(.nonHTTPResponse(url: response?.url ?? requestURL))
        }
        var response = Response(httpResponse, body: data)
        if response.url == nil { response.url = requestURL }
        guard validation.accepts(response) else {
            return .failure(.unacceptableStatus(response))
        }
        return .success(response)
    }

    static func acceptingJSON(_ request: Request) -> Request {
        guard !request.headers.contains("Accept") else { return request }
        var request = request
        request.headers["Accept"] = "application/json"
        return request
    }
}

/// The task returned when a request failed before it reached the session (an invalid URL, a
/// body that could not be encoded): its completion has already run, so there is nothing to do.
final class FinishedTask: URLSessionDataTaskProtocol {
    func resume() {}
    func cancel() {}
}
