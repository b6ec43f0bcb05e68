import Foundation

// MARK: - Completion-handler verbs
//
// Each one builds a Request and calls send(_:completion:); the completion runs exactly once.

extension HTTPClient {
    /// Sends a `GET` to `url`.
    @discardableResult
    public func get(
        url: URL, headers: HTTPHeaders = [:],
        completion: @escaping @Sendable (Result<Response, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        send(Request(method: .get, url: url, headers: headers), completion: completion)
    }

    /// Sends a `GET` to `url` and decodes the body as `Value`.
    @discardableResult
    public func get<Value: Decodable & Sendable>(
        url: URL, as type: Value.Type, headers: HTTPHeaders = [:],
        completion: @escaping @Sendable (Result<Value, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        send(Request(method: .get, url: url, headers: headers), as: type, completion: completion)
    }

    /// Sends a `POST` of `body` to `url`.
    @discardableResult
    public func post(
        url: URL, body: Data, headers: HTTPHeaders = [:],
        completion: @escaping @Sendable (Result<Response, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        send(Request(method: .post, url: url, headers: headers, body: .data(body)), completion: completion)
    }

    /// Sends a `PUT` of `body` to `url`.
    @discardableResult
    public func put(
        url: URL, body: Data, headers: HTTPHeaders = [:],
        completion: @escaping @Sendable (Result<Response, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        send(Request(method: .put, url: url, headers: headers, body: .data(body)), completion: completion)
    }

    /// Sends a `PATCH` of `body` to `url`.
    @discardableResult
    public func patch(
        url: URL, body: Data, headers: HTTPHeaders = [:],
        completion: @escaping @Sendable (Result<Response, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        send(Request(method: .patch, url: url, headers: headers, body: .data(body)), completion: completion)
    }

    /// Sends a `DELETE` to `url`.
    @discardableResult
    public func delete(
        url: URL, headers: HTTPHeaders = [:],
        completion: @escaping @Sendable (Result<Response, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        send(Request(method: .delete, url: url, headers: headers), completion: completion)
    }

    /// Sends a `HEAD` to `url`.
    @discardableResult
    public func head(
        url: URL, headers: HTTPHeaders = [:],
        completion: @escaping @Sendable (Result<Response, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        send(Request(method: .head, url: url, headers: headers), completion: completion)
    }
}

// MARK: - async/await verbs

extension HTTPClient {
    /// Sends a `GET` to `url`.
    public func get(_ url: URL, headers: HTTPHeaders = [:]) async throws(HTTPClientError) -> Response {
        try await send(Request(method: .get, url: url, headers: headers))
    }

    /// Sends a `GET` to `url` and decodes the body as `Value`.
    public func get<Value: Decodable & Sendable>(
        _ url: URL, as type: Value.Type, headers: HTTPHeaders = [:]
    ) async throws(HTTPClientError) -> Value {
        try await send(Request(method: .get, url: url, headers: headers), as: type)
    }

    /// Sends a `POST` of `body` (raw bytes) to `url`.
    public func post(_ url: URL, body: Data? = nil, headers: HTTPHeaders = [:]) async throws(HTTPClientError) -> Response {
        try await send(Request(method: .post, url: url, headers: headers, body: body.map { .data($0) }))
    }

    /// Sends a `POST` of `json` (encoded with ``encoder``) to `url`.
    public func post(
        _ url: URL, json: some Encodable & Sendable, headers: HTTPHeaders = [:]
    ) async throws(HTTPClientError) -> Response {
        try await send(Request(method: .post, url: url, headers: headers, body: .json(json)))
    }

    /// Sends a `POST` of `json` to `url` and decodes the response body as `Value`.
    public func post<Value: Decodable & Sendable>(
        _ url: URL, json: some Encodable & Sendable, as type: Value.Type, headers: HTTPHeaders = [:]
    ) async throws(HTTPClientError) -> Value {
        try await send(Request(method: .post, url: url, headers: headers, body: .json(json)), as: type)
    }

    /// Sends a `PUT` of `body` to `url`.
    public func put(_ url: URL, body: Data? = nil, headers: HTTPHeaders = [:]) async throws(HTTPClientError) -> Response {
        try await send(Request(method: .put, url: url, headers: headers, body: body.map { .data($0) }))
    }

    /// Sends a `PUT` of `json` to `url`.
    public func put(
        _ url: URL, json: some Encodable & Sendable, headers: HTTPHeaders = [:]
    ) async throws(HTTPClientError) -> Response {
        try await send(Request(method: .put, url: url, headers: headers, body: .json(json)))
    }

    /// Sends a `PATCH` of `body` to `url`.
    public func patch(_ url: URL, body: Data? = nil, headers: HTTPHeaders = [:]) async throws(HTTPClientError) -> Response {
        try await send(Request(method: .patch, url: url, headers: headers, body: body.map { .data($0) }))
    }

    /// Sends a `PATCH` of `json` to `url`.
    public func patch(
        _ url: URL, json: some Encodable & Sendable, headers: HTTPHeaders = [:]
    ) async throws(HTTPClientError) -> Response {
        try await send(Request(method: .patch, url: url, headers: headers, body: .json(json)))
    }

    /// Sends a `DELETE` to `url`.
    public func delete(_ url: URL, headers: HTTPHeaders = [:]) async throws(HTTPClientError) -> Response {
        try await send(Request(method: .delete, url: url, headers: headers))
    }

    /// Sends a `HEAD` to `url`.
    public func head(_ url: URL, headers: HTTPHeaders = [:]) async throws(HTTPClientError) -> Response {
        try await send(Request(method: .head, url: url, headers: headers))
    }
}
