import Foundation

extension HTTPClient {
    /// What a request got back: its ``value`` (decoded as the ``Request`` asked), the status,
    /// headers and body, and the request actually sent.
    ///
    /// ```swift
    /// let response = try await client.send(HTTPClient.Request<User>.get("me"))
    /// print(response.statusCode, response.value.name)
    /// ```
    ///
    /// `Response<Data>` is the raw response (its value is the body): what errors, events,
    /// streams and downloads carry. Printing or dumping a response hides the credentials of the
    /// request it carries (``Redaction/standard``).
    public struct Response<Value: Sendable>: Sendable {
        /// What the body decoded to; for `Response<Data>`, the body as it came.
        public var value: Value
        /// The HTTP status code, such as 200 or 404.
        public var statusCode: Int
        /// The response headers; look them up case-insensitively with `headers["content-type"]`.
        public var headers: HTTPHeaders {
            get { headerStore.headers }
            set { headerStore = .read(newValue) }
        }
        /// The headers, or the `HTTPURLResponse` they are read from the first time they are asked
        /// for: Foundation builds `allHeaderFields` anew, bridging every name and value, each time
        /// it is read, and most callers never look at the headers.
        private var headerStore: HeaderStore
        /// The body; empty (never `nil`) when the server sent none.
        public var body: Data
        /// The URL of the response (after redirects), or of the request when the response had none.
        public var url: URL?
        /// The request as it was sent (client headers, per-request configuration and
        /// interceptors applied); `nil` for a response built by hand. It holds the request's
        /// credentials: log it through ``Redaction``, as this response's `description` does.
        public var request: URLRequest?

        /// Whether the status is 2xx.
        public var isSuccessful: Bool { (200..<300).contains(statusCode) }

        /// The body decoded as UTF-8, or `nil` if it is not valid UTF-8.
        public var text: String? { String(data: body, encoding: .utf8) }

        /// Decodes the body as JSON: for an error body, or another type than the request's.
        ///
        /// - Parameters:
        ///   - type: The type to decode.
        ///   - decoder: The decoder; a plain `JSONDecoder` by default.
        /// An empty body (a 204, or a 200 with no bytes) is `nil` when `type` is optional
        /// (`User?`), as a JSON `null` is.
        ///
        /// - Throws: ``HTTPClientError/decodingFailed(type:response:underlying:)``, also when
        ///   the body is empty and `type` is not optional (with an ``EmptyBodyError``, where
        ///   `JSONDecoder` would report it obscurely).
        public func decode<Decoded: Decodable & Sendable>(
            _ type: Decoded.Type = Decoded.self, using decoder: JSONDecoder = JSONDecoder()
        ) throws(HTTPClientError) -> Decoded {
            guard !body.isEmpty else {
                if let optional = Decoded.self as? any OptionalValue.Type, let absent = optional.absent as? Decoded {
                    return absent
                }
                throw .decodingFailed(type: String(describing: Decoded.self), response: raw, underlying: EmptyBodyError())
            }
            do {
                return try decoder.decode(Decoded.self, from: body)
            } catch {
                throw .decodingFailed(type: String(describing: Decoded.self), response: raw, underlying: error)
            }
        }

        init(value: Value, statusCode: Int, headerStore: HeaderStore, body: Data, url: URL?, request: URLRequest?) {
            self.value = value
            self.statusCode = statusCode
            self.headerStore = headerStore
            self.body = body
            self.url = url
            self.request = request
        }

        /// This response with `value` in place of its own.
        func replacingValue<Other>(with value: Other) -> Response<Other> {
            Response<Other>(value: value, statusCode: statusCode, headerStore: headerStore, body: body, url: url, request: request)
        }

        /// The raw response: the same, its value the body.
        var raw: Response<Data> { replacingValue(with: body) }
    }
}

extension HTTPClient.Response where Value == Data {
    /// A raw response with these parts, for tests and for transports that build one by hand.
    ///
    /// - Parameters:
    ///   - statusCode: The HTTP status code.
    ///   - headers: The response headers.
    ///   - body: The body, also the ``value``.
    ///   - url: The URL the response came from.
    ///   - request: The request that was sent, if known.
    public init(statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data(), url: URL? = nil, request: URLRequest? = nil) {
        self.init(value: body, statusCode: statusCode, headerStore: .read(headers), body: body, url: url, request: request)
    }

    /// Reads status, headers and URL from a Foundation response.
    /// `package`: cassette recording (HTTPClientStubs) reads headers the way the client does.
    package init(_ response: HTTPURLResponse, body: Data?, request: URLRequest? = nil) {
        self.init(
            value: body ?? Data(), statusCode: response.statusCode, headerStore: .unread(HTTPClient.UnreadHeaders(response)),
            body: body ?? Data(), url: response.url, request: request)
    }
}

extension HTTPClient.Response: Equatable where Value: Equatable {}
extension HTTPClient.Response: Hashable where Value: Hashable {}

extension HTTPClient {
    /// A response's headers as given, or as yet unread in the `HTTPURLResponse` they came in.
    /// Equal and hashed by the headers themselves, however they are held.
    enum HeaderStore: Sendable, Hashable {
        case read(HTTPHeaders)
        case unread(UnreadHeaders)

        var headers: HTTPHeaders {
            switch self {
            case .read(let headers): headers
            case .unread(let unread): unread.headers
            }
        }

        static func == (lhs: Self, rhs: Self) -> Bool { lhs.headers == rhs.headers }

        func hash(into hasher: inout Hasher) { hasher.combine(headers) }
    }

    /// The headers of an `HTTPURLResponse`, read once, when first asked for.
    final class UnreadHeaders: Sendable {
        private let response: HTTPURLResponse
        private let read = Locked<HTTPHeaders?>(nil)

        init(_ response: HTTPURLResponse) { self.response = response }

        var headers: HTTPHeaders {
            read.withLock { read in
                if let headers = read { return headers }
                let headers = Self.headers(of: response)
                read = headers
                return headers
            }
        }

        private static func headers(of response: HTTPURLResponse) -> HTTPHeaders {
            var fields: [(name: String, value: String)] = []
            let all = response.allHeaderFields
            fields.reserveCapacity(all.count)
            for (key, value) in all {
                // Direct casts: string interpolation of AnyHashable/Any goes through dynamic
                // `description` lookups, a measurable part of a loopback request.
                let name = (key.base as? String) ?? String(describing: key.base)
                fields.append((name, (value as? String) ?? String(describing: value)))
            }
            // Sorted so iteration order does not depend on dictionary hashing.
            fields.sort { $0.name < $1.name }
            return HTTPHeaders(fields.map { HTTPHeaders.Field(name: $0.name, value: $0.value) })
        }
    }
}

extension HTTPClient.Response: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The status and URL, credentials hidden: `HTTP 200 from https://api.example.com/me`.
    public var description: String {
        "HTTP \(statusCode) from \(redactedURL(.standard))"
    }

    /// The status, URL, headers and request sent, credentials hidden (``Redaction/standard``,
    /// and the request's own credentials wherever a header or the URL repeats them).
    public var debugDescription: String {
        let redaction = hidingItsCredentials(.standard)
        var lines = [description]
        if let request {
            lines.append("request: \(request.httpMethod ?? "GET") \(redaction.redacted(url: request.url)?.absoluteString ?? "")")
        }
        lines += redaction.redacted(headers).map { "\($0.name): \($0.value)" }
        lines.append("\(body.count) bytes")
        return lines.joined(separator: "\n")
    }

    /// What `dump`, `Mirror(reflecting:)` and test failure messages show, with what
    /// ``description`` hides hidden here too: the URL, headers and request sent with their
    /// credentials hidden, and the body redacted (its text, as ``Redaction/redacted(body:contentType:)``
    /// gives it). The decoded value is not shown, only its type: it came from the body, and a
    /// value of any type cannot be redacted (a token field is a token field in the body too).
    public var customMirror: Mirror {
        let redaction = hidingItsCredentials(.standard)
        let request = self.request.map { sent -> String in
            let headers = redaction.redacted(HTTPHeaders(sent.allHTTPHeaderFields ?? [:]))
            let url = redaction.redacted(url: sent.url)?.absoluteString ?? ""
            return ([sent.httpMethod ?? "GET", url] + headers.map { "\($0.name): \($0.value)" }).joined(separator: " ")
        }
        return Mirror(
            self,
            children: [
                "value": "\(Value.self), decoded from the body", "statusCode": statusCode,
                "headers": redaction.redacted(headers), "body": redactedBodyText(redaction),
                "url": redaction.redacted(url: url) as Any, "request": request as Any,
            ], displayStyle: .struct)
    }
}

extension HTTPClient.Response {
    /// The body as text with `redaction` applied, or its size when it is not UTF-8 text.
    fileprivate func redactedBodyText(_ redaction: Redaction) -> String {
        let redacted = redaction.redacted(body: body, contentType: headers["Content-Type"])
        return String(bytes: redacted, encoding: .utf8) ?? "\(body.count) bytes, not text"
    }
}
