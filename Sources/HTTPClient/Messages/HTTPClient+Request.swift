import Foundation

extension HTTPClient {
    /// Everything needed to send one request, and what its response body decodes to.
    ///
    /// `Value` is what ``HTTPClient/send(_:)`` returns as the response's
    /// ``Response/value``: a `Decodable` type is decoded from JSON with the client's
    /// ``HTTPClient/decoder``, and `Data` is the body as it came (no decoding). Declare an
    /// endpoint once and send it anywhere:
    ///
    /// ```swift
    /// enum API {
    ///     static let me = HTTPClient.Request<User>.get("me")
    ///     static func user(_ id: Int) -> HTTPClient.Request<User> { .get("users/\(id)") }
    /// }
    ///
    /// let response = try await client.send(API.me)
    /// print(response.statusCode, response.value.name)
    /// ```
    public struct Request<Value: Sendable>: Sendable {
        /// The HTTP method.
        public var method: HTTPMethod
        /// Where the request goes: a URL, or a path resolved against the client's base URL.
        public var target: RequestTarget
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
        /// Interceptors for this request alone, run after the client's
        /// ``HTTPClient/interceptors`` (or instead of them when ``usesClientInterceptors`` is
        /// `false`).
        public var interceptors: [any Interceptor] = []
        /// Whether the client's ``HTTPClient/interceptors`` run before this request's own; `true`
        /// by default. Set `false` to replace them, dropping what they add (an
        /// `Authorization` header, for one).
        public var usesClientInterceptors = true
        /// The retry policy for this request; `nil` uses the client's, `.disabled` never retries.
        public var retryPolicy: RetryPolicy?
        /// Whether sending the request twice is safe; `nil` decides by method. Set `true` on a
        /// POST that carries an idempotency key to let it be retried.
        public var isIdempotent: Bool?
        /// Adjusts the `URLRequest` once it is built (client headers, body and timeout set) and
        /// before the interceptors run: a cache policy, a timeout, a header, without writing an
        /// interceptor. The client's credentials stay on the origin the request was built for:
        /// when the closure moves it to another scheme, host or port, every header the client's
        /// ``HTTPClient/redaction`` hides (`Authorization`, `Cookie`, `X-Api-Key`... and names of
        /// your own rules) that the client added is removed and the interceptors cannot add one
        /// back; only the ones the closure sets itself are sent.
        ///
        /// ```swift
        /// var request = HTTPClient.Request<Data>.get("feed")
        /// request.configure = { $0.cachePolicy = .reloadIgnoringLocalCacheData }
        /// ```
        public var configure: (@Sendable (inout URLRequest) -> Void)?
        /// A delegate for this request's task alone, as kean/Get's `send(_:delegate:)` takes one:
        /// its metrics, authentication challenges and redirect decisions, beside the session's
        /// delegate. Set on each attempt's `URLSessionTask` (its `delegate` property, what
        /// `URLSession.data(for:delegate:)` sets) before it starts, for ``HTTPClient/send(_:)``
        /// and ``HTTPClient/send(_:completion:)``; streams, downloads and uploads do not use it.
        ///
        /// - Important: Apple platforms only. swift-corelibs-foundation (Linux) stores a task's
        ///   `delegate` but never calls it: every task event goes to the session's own delegate,
        ///   and `data(for:delegate:)` ignores its argument. A session that makes no
        ///   `URLSessionTask` (`MockURLSession`) ignores it too.
        public var delegate: (any URLSessionTaskDelegate)?

        /// Turns the raw response into the value; sets `Accept: application/json` when it decodes.
        let decoding: Decoding<Value>

        init(
            method: HTTPMethod, url: some RequestTargetConvertible, query: [URLQueryItem], headers: HTTPHeaders,
            body: Body?, timeout: TimeInterval?, validation: Validation?, decoding: Decoding<Value>
        ) {
            self.method = method
            self.target = url.requestTarget
            self.query = query
            self.headers = headers
            self.body = body
            self.timeout = timeout
            self.validation = validation
            self.decoding = decoding
        }
    }
}

// MARK: - Raw requests

extension HTTPClient.Request where Value == Data {
    /// A request whose response value is the body as it came, not decoded.
    ///
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
        method: HTTPMethod, url: some RequestTargetConvertible, query: [URLQueryItem] = [], headers: HTTPHeaders = [:],
        body: HTTPClient.Body? = nil, timeout: TimeInterval? = nil, validation: HTTPClient.Validation? = nil
    ) {
        self.init(
            method: method, url: url, query: query, headers: headers, body: body, timeout: timeout, validation: validation,
            decoding: HTTPClient.Decoding(acceptsJSON: false) { response, _ in response.body })
    }

    /// A `GET` of `url` (a `URL` or a path).
    ///
    /// - Parameters:
    ///   - url: A `URL`, or a path resolved against the client's base URL.
    ///   - query: Items appended to the URL's own query.
    ///   - headers: Headers that replace the client's of the same name.
    public static func get(_ url: some RequestTargetConvertible, query: [URLQueryItem] = [], headers: HTTPHeaders = [:]) -> Self {
        Self(method: .get, url: url, query: query, headers: headers)
    }

    /// A `HEAD` of `url` (a `URL` or a path).
    ///
    /// - Parameters:
    ///   - url: A `URL`, or a path resolved against the client's base URL.
    ///   - query: Items appended to the URL's own query.
    ///   - headers: Headers that replace the client's of the same name.
    public static func head(_ url: some RequestTargetConvertible, query: [URLQueryItem] = [], headers: HTTPHeaders = [:]) -> Self {
        Self(method: .head, url: url, query: query, headers: headers)
    }

    /// A `DELETE` of `url` (a `URL` or a path).
    ///
    /// - Parameters:
    ///   - url: A `URL`, or a path resolved against the client's base URL.
    ///   - query: Items appended to the URL's own query.
    ///   - headers: Headers that replace the client's of the same name.
    public static func delete(_ url: some RequestTargetConvertible, query: [URLQueryItem] = [], headers: HTTPHeaders = [:]) -> Self {
        Self(method: .delete, url: url, query: query, headers: headers)
    }

    /// An `OPTIONS` request to `url` (a `URL` or a path).
    ///
    /// - Parameters:
    ///   - url: A `URL`, or a path resolved against the client's base URL.
    ///   - query: Items appended to the URL's own query.
    ///   - headers: Headers that replace the client's of the same name.
    public static func options(_ url: some RequestTargetConvertible, query: [URLQueryItem] = [], headers: HTTPHeaders = [:]) -> Self {
        Self(method: .options, url: url, query: query, headers: headers)
    }

    /// A `POST` of `body` to `url` (a `URL` or a path).
    ///
    /// - Parameters:
    ///   - url: A `URL`, or a path resolved against the client's base URL.
    ///   - body: What the request sends; its content type is set unless `headers` has one.
    ///   - query: Items appended to the URL's own query.
    ///   - headers: Headers that replace the client's of the same name.
    public static func post(
        _ url: some RequestTargetConvertible, body: HTTPClient.Body? = nil, query: [URLQueryItem] = [], headers: HTTPHeaders = [:]
    ) -> Self {
        Self(method: .post, url: url, query: query, headers: headers, body: body)
    }

    /// A `PUT` of `body` to `url` (a `URL` or a path).
    ///
    /// - Parameters:
    ///   - url: A `URL`, or a path resolved against the client's base URL.
    ///   - body: What the request sends; its content type is set unless `headers` has one.
    ///   - query: Items appended to the URL's own query.
    ///   - headers: Headers that replace the client's of the same name.
    public static func put(
        _ url: some RequestTargetConvertible, body: HTTPClient.Body? = nil, query: [URLQueryItem] = [], headers: HTTPHeaders = [:]
    ) -> Self {
        Self(method: .put, url: url, query: query, headers: headers, body: body)
    }

    /// A `PATCH` of `body` to `url` (a `URL` or a path).
    ///
    /// - Parameters:
    ///   - url: A `URL`, or a path resolved against the client's base URL.
    ///   - body: What the request sends; its content type is set unless `headers` has one.
    ///   - query: Items appended to the URL's own query.
    ///   - headers: Headers that replace the client's of the same name.
    public static func patch(
        _ url: some RequestTargetConvertible, body: HTTPClient.Body? = nil, query: [URLQueryItem] = [], headers: HTTPHeaders = [:]
    ) -> Self {
        Self(method: .patch, url: url, query: query, headers: headers, body: body)
    }
}

// MARK: - Typed requests

extension HTTPClient.Request where Value: Decodable {
    /// A request whose successful response body is decoded from JSON as `Value` with the
    /// client's ``HTTPClient/decoder`` (sending `Accept: application/json` unless `headers` or
    /// the client's ``HTTPClient/headers`` set one). An empty body is `nil` when `Value` is optional (`Request<User?>`); otherwise it
    /// fails, as an undecodable one does, with
    /// ``HTTPClientError/decodingFailed(type:response:underlying:)``.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - url: A `URL`, or a path resolved against the client's base URL.
    ///   - query: Items appended to the URL's own query.
    ///   - headers: Headers that replace the client's of the same name.
    ///   - body: What the request sends; its content type is set unless `headers` has one.
    ///   - timeout: `nil` uses the client's.
    ///   - validation: `nil` uses the client's.
    public init(
        method: HTTPMethod, url: some RequestTargetConvertible, query: [URLQueryItem] = [], headers: HTTPHeaders = [:],
        body: HTTPClient.Body? = nil, timeout: TimeInterval? = nil, validation: HTTPClient.Validation? = nil
    ) {
        self.init(
            method: method, url: url, query: query, headers: headers, body: body, timeout: timeout, validation: validation,
            decoding: HTTPClient.Decoding(acceptsJSON: true) { response, decoder throws(HTTPClientError) in
                try response.decode(Value.self, using: decoder)
            })
    }

    /// A `GET` of `url` (a `URL` or a path), decoding `Value`.
    ///
    /// - Parameters:
    ///   - url: A `URL`, or a path resolved against the client's base URL.
    ///   - query: Items appended to the URL's own query.
    ///   - headers: Headers that replace the client's of the same name.
    public static func get(_ url: some RequestTargetConvertible, query: [URLQueryItem] = [], headers: HTTPHeaders = [:]) -> Self {
        Self(method: .get, url: url, query: query, headers: headers)
    }

    /// A `DELETE` of `url` (a `URL` or a path), decoding `Value`.
    ///
    /// - Parameters:
    ///   - url: A `URL`, or a path resolved against the client's base URL.
    ///   - query: Items appended to the URL's own query.
    ///   - headers: Headers that replace the client's of the same name.
    public static func delete(_ url: some RequestTargetConvertible, query: [URLQueryItem] = [], headers: HTTPHeaders = [:]) -> Self {
        Self(method: .delete, url: url, query: query, headers: headers)
    }

    /// A `POST` of `body` to `url` (a `URL` or a path), decoding `Value`.
    ///
    /// - Parameters:
    ///   - url: A `URL`, or a path resolved against the client's base URL.
    ///   - body: What the request sends; its content type is set unless `headers` has one.
    ///   - query: Items appended to the URL's own query.
    ///   - headers: Headers that replace the client's of the same name.
    public static func post(
        _ url: some RequestTargetConvertible, body: HTTPClient.Body? = nil, query: [URLQueryItem] = [], headers: HTTPHeaders = [:]
    ) -> Self {
        Self(method: .post, url: url, query: query, headers: headers, body: body)
    }

    /// A `PUT` of `body` to `url` (a `URL` or a path), decoding `Value`.
    ///
    /// - Parameters:
    ///   - url: A `URL`, or a path resolved against the client's base URL.
    ///   - body: What the request sends; its content type is set unless `headers` has one.
    ///   - query: Items appended to the URL's own query.
    ///   - headers: Headers that replace the client's of the same name.
    public static func put(
        _ url: some RequestTargetConvertible, body: HTTPClient.Body? = nil, query: [URLQueryItem] = [], headers: HTTPHeaders = [:]
    ) -> Self {
        Self(method: .put, url: url, query: query, headers: headers, body: body)
    }

    /// A `PATCH` of `body` to `url` (a `URL` or a path), decoding `Value`.
    ///
    /// - Parameters:
    ///   - url: A `URL`, or a path resolved against the client's base URL.
    ///   - body: What the request sends; its content type is set unless `headers` has one.
    ///   - query: Items appended to the URL's own query.
    ///   - headers: Headers that replace the client's of the same name.
    public static func patch(
        _ url: some RequestTargetConvertible, body: HTTPClient.Body? = nil, query: [URLQueryItem] = [], headers: HTTPHeaders = [:]
    ) -> Self {
        Self(method: .patch, url: url, query: query, headers: headers, body: body)
    }
}

// MARK: - Building a URLRequest

extension HTTPClient {
    /// Turns a ``Request`` into the `URLRequest` the interceptors receive, and says whether its
    /// `configure` closure moved it to another origin (see ``CredentialScope``).
    ///
    /// - Throws: ``HTTPClientError/invalidURL(_:reason:)``, ``HTTPClientError/invalidHeader(name:reason:)``,
    ///   ``HTTPClientError/invalidMethod(_:reason:)`` or ``HTTPClientError/encodingFailed(type:underlying:)``.
    func makeURLRequest<Value>(for request: Request<Value>) throws(HTTPClientError) -> (URLRequest, leftItsOrigin: Bool) {
        let url = try URLBuilder.url(for: request.target, query: request.query, baseURL: baseURL)
        var urlRequest = URLRequest(url: url)
        // GET is URLRequest's default; the setter costs a locale-aware string comparison on
        // Linux, most of a mocked round trip.
        if request.method != .get {
            // URLRequest takes any string, and a session sends it as it is: a method with a
            // space or a line break in it would split the request line.
            try Self.check(method: request.method.rawValue)
            urlRequest.httpMethod = request.method.rawValue
        }
        if let timeout = request.timeout ?? timeout {
            urlRequest.timeoutInterval = timeout
        }
        var headers = self.headers
        if !request.headers.isEmpty { headers.merge(request.headers) }
        if request.decoding.acceptsJSON, headers["Accept"] == nil {
            headers["Accept"] = "application/json"
        }
        if let body = request.body, let encoded = try encode(body) {
            let (data, contentType) = encoded
            urlRequest.httpBody = data
            if let contentType, headers["Content-Type"] == nil {
                headers["Content-Type"] = contentType
            }
        }
        try urlRequest.addHeaders(headers)
        guard let configure = request.configure else { return (urlRequest, false) }
        let built = urlRequest
        configure(&urlRequest)
        guard let configured = urlRequest.url, configured.scheme != nil else {
            throw .invalidURL(
                url.absoluteString, reason: "the request's configure closure left it without an absolute URL, so nothing was sent")
        }
        try urlRequest.checkSendable()
        guard CredentialScope.leavesOrigin(built, urlRequest) else { return (urlRequest, false) }
        CredentialScope.removeTheClientsCredentials(from: &urlRequest, builtAs: built, hiddenBy: redaction)
        return (urlRequest, true)
    }

    /// The bytes and content type of `body`; `nil` for a nil optional as ``Body/json(_:)``.
    private func encode(_ body: Body) throws(HTTPClientError) -> (Data, contentType: String?)? {
        switch body {
        case .data(let data, let contentType):
            return (data, contentType)
        case .json(let value):
            if let optional = value as? any OptionalValue, optional.isAbsent { return nil }
            do {
                return (try encoder.encode(value), "application/json")
            } catch {
                throw .encodingFailed(type: String(describing: type(of: value)), underlying: error)
            }
        }
    }
}

extension URLRequest {
    /// Adds `headers` to a request that has none yet, as `addValue(_:forHTTPHeaderField:)` for
    /// each would: values of one name (in any case) joined with commas, under the name's first
    /// spelling.
    ///
    /// `addValue` checks a value character by character and, on Linux, capitalizes the name
    /// again: about 10,000 instructions a header, a fifth of a mocked round trip. Headers whose
    /// names are tokens and whose values are printable ASCII are set in one assignment; any other
    /// header list is checked here, then goes through `addValue`.
    ///
    /// - Throws: ``HTTPClientError/invalidHeader(name:reason:)`` for a name that is not a token
    ///   or a value with a control character other than a tab: `addValue` drops a value with a
    ///   line break or a NUL without a word on Linux, and a session may send one as it is,
    ///   splitting the header in two.
    mutating func addHeaders(_ headers: HTTPHeaders) throws(HTTPClientError) {
        guard !headers.isEmpty else { return }
        guard allHTTPHeaderFields?.isEmpty ?? true, headers.allSatisfy({ $0.name.isHTTPToken && $0.value.isPrintableASCII }) else {
            for field in headers { try HTTPClient.check(field) }
            for field in headers { addValue(field.value, forHTTPHeaderField: field.name) }
            return
        }
        allHTTPHeaderFields = headers.joinedByName { _ in "," }
    }
}

extension URLRequest {
    /// Checks a request the app's own code changed (a `configure` closure, an interceptor) as
    /// the client checks the requests it builds: a session sends a method and a header name as
    /// they are, so a line break in either would split the request in two on the wire.
    ///
    /// - Throws: ``HTTPClientError/invalidMethod(_:reason:)`` or ``HTTPClientError/invalidHeader(name:reason:)``.
    func checkSendable() throws(HTTPClientError) {
        if let method = httpMethod { try HTTPClient.check(method: method) }
        for (name, value) in allHTTPHeaderFields ?? [:] { try HTTPClient.check(HTTPHeaders.Field(name: name, value: value)) }
    }
}

extension HTTPClient {
    /// Throws ``HTTPClientError/invalidMethod(_:reason:)`` unless `method` is a token.
    static func check(method: String) throws(HTTPClientError) {
        guard method.isHTTPToken else { throw .invalidMethod(method, reason: tokenProblem(method, what: "a method")) }
    }

    /// Throws ``HTTPClientError/invalidHeader(name:reason:)`` if `field` cannot be sent (see ``headerProblem(_:)``).
    static func check(_ field: HTTPHeaders.Field) throws(HTTPClientError) {
        if let problem = headerProblem(field) { throw .invalidHeader(name: field.name, reason: problem) }
    }

    /// What keeps `field` from being sent, or `nil` if nothing does: a name that is not a token,
    /// a value with a control character other than a tab (RFC 9110 §5.5). The value itself is not
    /// quoted: it may be a credential.
    /// `package`: httpc checks the headers given to `-H` this way.
    package static func headerProblem(_ field: HTTPHeaders.Field) -> String? {
        guard field.name.isHTTPToken else { return tokenProblem(field.name, what: "a header name") }
        for (offset, byte) in field.value.utf8.enumerated() where (byte < 0x20 && byte != 0x09) || byte == 0x7F {
            return "its value holds \(name(of: byte)) at byte \(offset + 1) of \(field.value.utf8.count); "
                + "a header value may hold no control character but a tab"
        }
        return nil
    }

    /// Why `string`, which is not a token, cannot be `what`.
    private static func tokenProblem(_ string: String, what: String) -> String {
        let rule = "\(what) is a token: letters, digits and !#$%&'*+-.^_`|~"
        guard let (offset, byte) = string.utf8.enumerated().first(where: { !$0.element.isHTTPTokenByte }) else {
            return "it is empty; " + rule
        }
        return "it holds \(name(of: byte)) at byte \(offset + 1); " + rule
    }

    /// How an error message names `byte`: a control character by its name or code, never as itself.
    private static func name(of byte: UInt8) -> String {
        switch byte {
        case 0x0D: "a carriage return (CR)"
        case 0x0A: "a line feed (LF)"
        case 0x00: "a NUL"
        case 0x20: "a space"
        case 0x80...: "a non-ASCII character"
        case ..<0x20, 0x7F: "the control character 0x" + String(byte, radix: 16, uppercase: true)
        default: "\"\(Character(UnicodeScalar(byte)))\""
        }
    }
}

extension String {
    /// Whether every byte is printable ASCII (a space included) or a tab.
    fileprivate var isPrintableASCII: Bool {
        utf8.allSatisfy { (0x20...0x7E).contains($0) || $0 == 0x09 }
    }
}
