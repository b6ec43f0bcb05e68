import Foundation

// The everyday shorthands: a GET and a POST of raw bytes, in both styles. Everything else (any
// method, query items, JSON bodies, typed values, per-request options) is a `Request` given to
// `send`.

extension HTTPClient {
    /// Sends a `GET` to `url` (a `URL` or a path) and calls `completion` once.
    ///
    /// - Parameters:
    ///   - url: A `URL`, or a path resolved against ``baseURL``.
    ///   - headers: Headers that replace the client's of the same name.
    ///   - completion: Called once with the response or the error.
    /// - Returns: The started task.
    @discardableResult
    public func get(
        url: some RequestTargetConvertible, headers: HTTPHeaders = [:],
        completion: @escaping @Sendable (Result<Response<Data>, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        send(.get(url, headers: headers), completion: completion)
    }

    /// Sends a `POST` of `body` (raw bytes, none by default) to `url` (a `URL` or a path) and
    /// calls `completion` once.
    ///
    /// - Parameters:
    ///   - url: A `URL`, or a path resolved against ``baseURL``.
    ///   - body: The bytes to send.
    ///   - headers: Headers that replace the client's of the same name.
    ///   - completion: Called once with the response or the error.
    /// - Returns: The started task.
    @discardableResult
    public func post(
        url: some RequestTargetConvertible, body: Data? = nil, headers: HTTPHeaders = [:],
        completion: @escaping @Sendable (Result<Response<Data>, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        send(.post(url, body: body.map { .data($0) }, headers: headers), completion: completion)
    }

    /// Sends a `GET` to `url` (a `URL` or a path).
    ///
    /// - Parameters:
    ///   - url: A `URL`, or a path resolved against ``baseURL``.
    ///   - headers: Headers that replace the client's of the same name.
    public func get(_ url: some RequestTargetConvertible, headers: HTTPHeaders = [:]) async throws(HTTPClientError) -> Response<Data> {
        try await send(.get(url, headers: headers))
    }

    /// Sends a `POST` of `body` (raw bytes, none by default) to `url` (a `URL` or a path).
    ///
    /// - Parameters:
    ///   - url: A `URL`, or a path resolved against ``baseURL``.
    ///   - body: The bytes to send.
    ///   - headers: Headers that replace the client's of the same name.
    public func post(
        _ url: some RequestTargetConvertible, body: Data? = nil, headers: HTTPHeaders = [:]
    ) async throws(HTTPClientError) -> Response<Data> {
        try await send(.post(url, body: body.map { .data($0) }, headers: headers))
    }
}
