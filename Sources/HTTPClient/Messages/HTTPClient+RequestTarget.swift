import Foundation

extension HTTPClient {
    /// Where a request goes: a complete URL, or a path resolved against the client's base URL.
    public enum RequestTarget: Sendable, Hashable {
        /// A complete URL, used as it is.
        case url(URL)
        /// A path such as `"users/1"` or `"/users/1?page=2"`, appended to the client's base URL
        /// (keeping the base URL's own path). An absolute URL string is used as it is.
        case path(String)
    }
}

/// Where a request can be sent: a `URL` as it is, or a `String` path (`"users/1"`,
/// `"/users/1?page=2"`) resolved against the client's ``HTTPClient/baseURL``. Every
/// ``HTTPClient/Request`` shorthand and the `get`/`post` shorthands take one, so
/// `client.get(url)` and `client.get("users/1")` are the same call.
public protocol RequestTargetConvertible: Sendable {
    /// Where a request built from this value goes.
    var requestTarget: HTTPClient.RequestTarget { get }
}

extension URL: RequestTargetConvertible {
    /// The URL, used as it is.
    public var requestTarget: HTTPClient.RequestTarget { .url(self) }
}

extension String: RequestTargetConvertible {
    /// The string as a path resolved against the client's base URL.
    public var requestTarget: HTTPClient.RequestTarget { .path(self) }
}

extension HTTPClient.RequestTarget: RequestTargetConvertible {
    /// The target itself.
    public var requestTarget: HTTPClient.RequestTarget { self }
}
