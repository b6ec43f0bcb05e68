import Foundation

/// What happened to one attempt of a request: for logging and metrics.
///
/// What the client's ``HTTPClient/redaction`` hides (credentials, cookies, keys and tokens by
/// default) is replaced by `REDACTED` in the URL and the headers, and the error's description
/// hides it too, so events can be logged as they are.
public struct HTTPClientEvent: Sendable, CustomStringConvertible {
    /// The request method.
    public let method: HTTPMethod
    /// The URL, redacted.
    public let url: URL?
    /// The request headers as sent, redacted.
    public let requestHeaders: HTTPHeaders
    /// The status, when a response arrived.
    public let statusCode: Int?
    /// The response headers, redacted.
    public let responseHeaders: HTTPHeaders
    /// The error, when the attempt failed (an unacceptable status included).
    public let error: HTTPClientError?
    /// Seconds from sending to the response or error.
    public let duration: TimeInterval
    /// 1 for the first attempt, 2 for the first retry...
    public let attempt: Int

    /// `GET https://h/x -> 200 in 12 ms (attempt 1)`.
    public var description: String {
        let outcome = statusCode.map(String.init) ?? error.map { "\($0)" } ?? "no response"
        return "\(method) \(url?.absoluteString ?? "?") -> \(outcome) in \(Int((duration * 1000).rounded())) ms (attempt \(attempt))"
    }
}
