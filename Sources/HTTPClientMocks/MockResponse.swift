import Foundation
import HTTPClient

/// A canned answer to a request: an HTTP response (status, headers, body) or a transport error.
///
/// ```swift
/// session.enqueue(.status(503), try .json(user))          // 503, then 200 with JSON
/// session.enqueue(.error(.notConnectedToInternet))         // a transport failure
/// ```
public struct MockResponse: Sendable {
    /// What the session delivers.
    public enum Outcome: Sendable {
        /// An HTTP response.
        case http(statusCode: Int, headers: HTTPHeaders, body: Data)
        /// A transport error, delivered as the completion's `error`.
        case failure(any Error)
    }

    public var outcome: Outcome

    public init(_ outcome: Outcome) {
        self.outcome = outcome
    }

    // MARK: Building

    /// A response with `statusCode`, `headers` and `body`.
    public static func status(_ statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data()) -> MockResponse {
        MockResponse(.http(statusCode: statusCode, headers: headers, body: body))
    }

    /// A response whose body is `text` in UTF-8.
    public static func text(
        _ text: String, status: Int = 200, headers: HTTPHeaders = ["Content-Type": "text/plain; charset=utf-8"]
    ) -> MockResponse {
        .status(status, headers: headers, body: Data(text.utf8))
    }

    /// A response whose body is `value` encoded as JSON, with `Content-Type: application/json`.
    ///
    /// - Throws: What `encoder` throws, so a test cannot silently stub an empty body.
    public static func json(
        _ value: some Encodable, status: Int = 200, headers: HTTPHeaders = [:], encoder: JSONEncoder = JSONEncoder()
    ) throws -> MockResponse {
        .json(raw: try encoder.encode(value), status: status, headers: headers)
    }

    /// A response whose body is JSON text written by hand: `.json(raw: #"{"id": 1}"#)`.
    public static func json(raw: String, status: Int = 200, headers: HTTPHeaders = [:]) -> MockResponse {
        .json(raw: Data(raw.utf8), status: status, headers: headers)
    }

    /// A response whose body is JSON bytes.
    public static func json(raw: Data, status: Int = 200, headers: HTTPHeaders = [:]) -> MockResponse {
        var headers = headers
        if !headers.contains("Content-Type") { headers["Content-Type"] = "application/json" }
        return .status(status, headers: headers, body: raw)
    }

    /// A transport error such as `URLError(.timedOut)`.
    public static func error(_ error: any Error) -> MockResponse {
        MockResponse(.failure(error))
    }

    /// A transport error with a `URLError` code: `.error(.notConnectedToInternet)`.
    public static func error(_ code: URLError.Code) -> MockResponse {
        .error(URLError(code))
    }

    // MARK: Delivering

    /// The triple a data task's completion handler receives for `request`.
    package func completionArguments(for request: URLRequest) -> (Data?, URLResponse?, (any Error)?) {
        switch outcome {
        case .failure(let error):
            return (nil, nil, error)
        case .http(let statusCode, let headers, let body):
            guard let url = request.url,
                let response = HTTPURLResponse.make(url: url, statusCode: statusCode, headers: headers)
            else {
                return (nil, nil, URLError(.badURL))
            }
            return (body, response, nil)
        }
    }
}

extension HTTPURLResponse {
    /// An HTTP/1.1 response; repeated header fields are joined as HTTP allows.
    package static func make(url: URL, statusCode: Int, headers: HTTPHeaders) -> HTTPURLResponse? {
        var fields: [String: String] = [:]
        if !headers.isEmpty {
            for name in headers.names { fields[name] = headers[name] }
        }
        return HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: fields)
    }
}
