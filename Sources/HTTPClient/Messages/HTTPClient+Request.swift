import Foundation

extension HTTPClient {
    /// Everything needed to send one request: method, target, query, headers, body and options.
    ///
    /// ```swift
    /// let request = HTTPClient.Request.get("users", query: [URLQueryItem(name: "page", value: "2")])
    /// let response = try await client.send(request)
    /// ```
    public struct Request: Sendable {
        /// Where a request goes: a complete URL, or a path resolved against the client's base URL.
        public enum Target: Sendable, Hashable {
            /// A complete URL, used as it is.
            case url(URL)
            /// A path such as `"users/1"` or `"/users/1?page=2"`, appended to the client's base URL
            /// (keeping the base URL's own path). An absolute URL string is used as it is.
            case path(String)
        }

        /// The HTTP method.
        public var method: HTTPMethod
        /// Where the request goes: a URL, or a path resolved against the client's base URL.
        public var target: Target
        /// Query items appended to the URL's own query, in order (repeated names are kept).
        public var query: [URLQueryItem]
        /// Headers for this request; they replace client headers of the same name.
        public var headers: HTTPHeaders
        /// What the request sends, if anything.
        public var body: Body?
        /// The timeout for this request; `nil` uses the client's ``HTTPClient/timeout``.
        public var timeout: TimeInterval?
        /// The validation for this request; `nil` uses the client's ``HTTPClient/validation``.
        public var validation: Validation?
        /// The interceptors for this request; `nil` uses the client's ``HTTPClient/interceptors``.
        public var interceptors: [any Interceptor]?
        /// The retry policy for this request; `nil` uses the client's, `.disabled` never retries.
        public var retryPolicy: RetryPolicy?
        /// Whether sending the request twice is safe; `nil` decides by method. Set `true` on a
        /// POST that carries an idempotency key to let it be retried.
        public var isIdempotent: Bool?

        /// - Parameters:
        ///   - method: The HTTP method.
        ///   - url: A `URL`, or a path resolved against the client's base URL (see
        ///     ``RequestTargetConvertible``).
        ///   - query: Items appended to the URL's own query.
        ///   - headers: Headers that replace the client's of the same name.
        ///   - body: What the request sends; its content type is set unless `headers` has one.
        ///   - timeout: `nil` uses the client's.
        ///   - validation: `nil` uses the client's.
        public init(
            method: HTTPMethod,
            url: some RequestTargetConvertible,
            query: [URLQueryItem] = [],
            headers: HTTPHeaders = [:],
            body: Body? = nil,
            timeout: TimeInterval? = nil,
            validation: Validation? = nil
        ) {
            self.method = method
            self.target = url.requestTarget
            self.query = query
            self.headers = headers
            self.body = body
            self.timeout = timeout
            self.validation = validation
        }

        // MARK: Shorthands, one per method

        /// A `GET` of `url` (a `URL` or a path).
        public static func get(_ url: some RequestTargetConvertible, query: [URLQueryItem] = [], headers: HTTPHeaders = [:]) -> Request {
            Request(method: .get, url: url, query: query, headers: headers)
        }

        /// A `HEAD` of `url` (a `URL` or a path).
        public static func head(_ url: some RequestTargetConvertible, query: [URLQueryItem] = [], headers: HTTPHeaders = [:]) -> Request {
            Request(method: .head, url: url, query: query, headers: headers)
        }

        /// A `DELETE` of `url` (a `URL` or a path).
        public static func delete(_ url: some RequestTargetConvertible, query: [URLQueryItem] = [], headers: HTTPHeaders = [:]) -> Request {
            Request(method: .delete, url: url, query: query, headers: headers)
        }

        /// An `OPTIONS` request to `url` (a `URL` or a path).
        public static func options(_ url: some RequestTargetConvertible, query: [URLQueryItem] = [], headers: HTTPHeaders = [:]) -> Request
        {
            Request(method: .options, url: url, query: query, headers: headers)
        }

        /// A `POST` of `body` to `url` (a `URL` or a path).
        public static func post(
            _ url: some RequestTargetConvertible, body: Body? = nil, query: [URLQueryItem] = [], headers: HTTPHeaders = [:]
        ) -> Request {
            Request(method: .post, url: url, query: query, headers: headers, body: body)
        }

        /// A `PUT` of `body` to `url` (a `URL` or a path).
        public static func put(
            _ url: some RequestTargetConvertible, body: Body? = nil, query: [URLQueryItem] = [], headers: HTTPHeaders = [:]
        ) -> Request {
            Request(method: .put, url: url, query: query, headers: headers, body: body)
        }

        /// A `PATCH` of `body` to `url` (a `URL` or a path).
        public static func patch(
            _ url: some RequestTargetConvertible, body: Body? = nil, query: [URLQueryItem] = [], headers: HTTPHeaders = [:]
        ) -> Request {
            Request(method: .patch, url: url, query: query, headers: headers, body: body)
        }
    }

    /// The body of a request. Bodies that imply a content type set `Content-Type` unless the
    /// request already has one.
    public enum Body: Sendable {
        /// Raw bytes, with an optional content type.
        case data(Data, contentType: String? = nil)
        /// A value encoded with the client's ``HTTPClient/encoder``; `Content-Type: application/json`.
        case json(any Encodable & Sendable)

        /// UTF-8 text; `Content-Type: text/plain; charset=utf-8` unless another is given.
        public static func text(_ text: String, contentType: String = "text/plain; charset=utf-8") -> Body {
            .data(Data(text.utf8), contentType: contentType)
        }
    }
}

// MARK: - Building a URLRequest

extension HTTPClient {
    /// Turns a ``Request`` into the `URLRequest` the session receives.
    ///
    /// - Throws: ``HTTPClientError/invalidURL(_:reason:)`` or ``HTTPClientError/encodingFailed(type:underlying:)``.
    public func makeURLRequest(for request: Request) throws(HTTPClientError) -> URLRequest {
        let url = try URLBuilder.url(for: request.target, query: request.query, baseURL: baseURL)
        var urlRequest = URLRequest(url: url)
        // GET is URLRequest's default; the setter costs a locale-aware string comparison on
        // Linux, most of a mocked round trip.
        if request.method != .get { urlRequest.httpMethod = request.method.rawValue }
        if let timeout = request.timeout ?? timeout {
            urlRequest.timeoutInterval = timeout
        }
        var headers = self.headers
        if !request.headers.isEmpty { headers.merge(request.headers) }
        if let body = request.body {
            let (data, contentType) = try encode(body)
            urlRequest.httpBody = data
            if let contentType, !headers.contains("Content-Type") {
                headers["Content-Type"] = contentType
            }
        }
        for field in headers {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        return urlRequest
    }

    private func encode(_ body: Body) throws(HTTPClientError) -> (Data, contentType: String?) {
        switch body {
        case .data(let data, let contentType):
            return (data, contentType)
        case .json(let value):
            do {
                return (try encoder.encode(value), "application/json")
            } catch {
                throw .encodingFailed(type: String(describing: type(of: value)), underlying: error)
            }
        }
    }
}
