import Foundation

/// Where a request can be sent: a `URL` as it is, or a `String` path (`"users/1"`,
/// `"/users/1?page=2"`) resolved against the client's ``HTTPClient/baseURL``. Every verb and
/// ``HTTPClient/Request`` shorthand takes one, so `client.get(url)` and `client.get("users/1")`
/// are the same call.
public protocol RequestTargetConvertible: Sendable {
    /// Where a request built from this value goes.
    var requestTarget: HTTPClient.Request.Target { get }
}

extension URL: RequestTargetConvertible {
    public var requestTarget: HTTPClient.Request.Target { .url(self) }
}

extension String: RequestTargetConvertible {
    public var requestTarget: HTTPClient.Request.Target { .path(self) }
}

extension HTTPClient.Request.Target: RequestTargetConvertible {
    /// The target itself.
    public var requestTarget: HTTPClient.Request.Target { self }
}
