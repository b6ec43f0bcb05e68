import Foundation

// The everyday shorthands. Each verb has one shape, the same in both styles: a `URL` or a path
// (see `RequestTargetConvertible`), headers, and for POST, PUT and PATCH either raw `body`
// bytes or a `json` value. `send(_:)` is the general form: any method, query items, per-request
// options, and decoding with `as:`.

// MARK: - Completion handlers
//
// Each builds a Request and calls send(_:completion:); the completion runs exactly once.

extension HTTPClient {
    /// Sends a `GET` to `url` (a `URL` or a path).
    @discardableResult
    public func get(
        url: some RequestTargetConvertible, headers: HTTPHeaders = [:],
        completion: @escaping @Sendable (Result<Response, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        send(.get(url, headers: headers), completion: completion)
    }

    /// Sends a `HEAD` to `url` (a `URL` or a path).
    @discardableResult
    public func head(
        url: some RequestTargetConvertible, headers: HTTPHeaders = [:],
        completion: @escaping @Sendable (Result<Response, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        send(.head(url, headers: headers), completion: completion)
    }

    /// Sends a `DELETE` to `url` (a `URL` or a path).
    @discardableResult
    public func delete(
        url: some RequestTargetConvertible, headers: HTTPHeaders = [:],
        completion: @escaping @Sendable (Result<Response, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        send(.delete(url, headers: headers), completion: completion)
    }

    /// Sends a `POST` of `body` (raw bytes, none by default) to `url` (a `URL` or a path).
    @discardableResult
    public func post(
        url: some RequestTargetConvertible, body: Data? = nil, headers: HTTPHeaders = [:],
        completion: @escaping @Sendable (Result<Response, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        send(.post(url, body: body.map { .data($0) }, headers: headers), completion: completion)
    }

    /// Sends a `POST` of `json` (encoded with ``encoder``) to `url` (a `URL` or a path).
    @discardableResult
    public func post(
        url: some RequestTargetConvertible, json: some Encodable & Sendable, headers: HTTPHeaders = [:],
        completion: @escaping @Sendable (Result<Response, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        send(.post(url, body: .json(json), headers: headers), completion: completion)
    }

    /// Sends a `PUT` of `body` (raw bytes, none by default) to `url` (a `URL` or a path).
    @discardableResult
    public func put(
        url: some RequestTargetConvertible, body: Data? = nil, headers: HTTPHeaders = [:],
        completion: @escaping @Sendable (Result<Response, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        send(.put(url, body: body.map { .data($0) }, headers: headers), completion: completion)
    }

    /// Sends a `PUT` of `json` (encoded with ``encoder``) to `url` (a `URL` or a path).
    @discardableResult
    public func put(
        url: some RequestTargetConvertible, json: some Encodable & Sendable, headers: HTTPHeaders = [:],
        completion: @escaping @Sendable (Result<Response, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        send(.put(url, body: .json(json), headers: headers), completion: completion)
    }

    /// Sends a `PATCH` of `body` (raw bytes, none by default) to `url` (a `URL` or a path).
    @discardableResult
    public func patch(
        url: some RequestTargetConvertible, body: Data? = nil, headers: HTTPHeaders = [:],
        completion: @escaping @Sendable (Result<Response, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        send(.patch(url, body: body.map { .data($0) }, headers: headers), completion: completion)
    }

    /// Sends a `PATCH` of `json` (encoded with ``encoder``) to `url` (a `URL` or a path).
    @discardableResult
    public func patch(
        url: some RequestTargetConvertible, json: some Encodable & Sendable, headers: HTTPHeaders = [:],
        completion: @escaping @Sendable (Result<Response, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        send(.patch(url, body: .json(json), headers: headers), completion: completion)
    }
}

// MARK: - async/await

extension HTTPClient {
    /// Sends a `GET` to `url` (a `URL` or a path).
    public func get(_ url: some RequestTargetConvertible, headers: HTTPHeaders = [:]) async throws(HTTPClientError) -> Response {
        try await send(.get(url, headers: headers))
    }

    /// Sends a `HEAD` to `url` (a `URL` or a path).
    public func head(_ url: some RequestTargetConvertible, headers: HTTPHeaders = [:]) async throws(HTTPClientError) -> Response {
        try await send(.head(url, headers: headers))
    }

    /// Sends a `DELETE` to `url` (a `URL` or a path).
    public func delete(_ url: some RequestTargetConvertible, headers: HTTPHeaders = [:]) async throws(HTTPClientError) -> Response {
        try await send(.delete(url, headers: headers))
    }

    /// Sends a `POST` of `body` (raw bytes, none by default) to `url` (a `URL` or a path).
    public func post(
        _ url: some RequestTargetConvertible, body: Data? = nil, headers: HTTPHeaders = [:]
    ) async throws(HTTPClientError) -> Response {
        try await send(.post(url, body: body.map { .data($0) }, headers: headers))
    }

    /// Sends a `POST` of `json` (encoded with ``encoder``) to `url` (a `URL` or a path).
    public func post(
        _ url: some RequestTargetConvertible, json: some Encodable & Sendable, headers: HTTPHeaders = [:]
    ) async throws(HTTPClientError) -> Response {
        try await send(.post(url, body: .json(json), headers: headers))
    }

    /// Sends a `PUT` of `body` (raw bytes, none by default) to `url` (a `URL` or a path).
    public func put(
        _ url: some RequestTargetConvertible, body: Data? = nil, headers: HTTPHeaders = [:]
    ) async throws(HTTPClientError) -> Response {
        try await send(.put(url, body: body.map { .data($0) }, headers: headers))
    }

    /// Sends a `PUT` of `json` (encoded with ``encoder``) to `url` (a `URL` or a path).
    public func put(
        _ url: some RequestTargetConvertible, json: some Encodable & Sendable, headers: HTTPHeaders = [:]
    ) async throws(HTTPClientError) -> Response {
        try await send(.put(url, body: .json(json), headers: headers))
    }

    /// Sends a `PATCH` of `body` (raw bytes, none by default) to `url` (a `URL` or a path).
    public func patch(
        _ url: some RequestTargetConvertible, body: Data? = nil, headers: HTTPHeaders = [:]
    ) async throws(HTTPClientError) -> Response {
        try await send(.patch(url, body: body.map { .data($0) }, headers: headers))
    }

    /// Sends a `PATCH` of `json` (encoded with ``encoder``) to `url` (a `URL` or a path).
    public func patch(
        _ url: some RequestTargetConvertible, json: some Encodable & Sendable, headers: HTTPHeaders = [:]
    ) async throws(HTTPClientError) -> Response {
        try await send(.patch(url, body: .json(json), headers: headers))
    }
}
