import Foundation

extension HTTPClient {
    /// Sends `request` and returns the response.
    ///
    /// Cancelling the calling Swift `Task` cancels the data task; the call then throws
    /// ``HTTPClientError/cancelled``.
    public func send(_ request: Request) async throws(HTTPClientError) -> Response {
        try await run(request).get()
    }

    /// Sends `request` and decodes a successful response body as `Value`.
    public func send<Value: Decodable & Sendable>(_ request: Request, as type: Value.Type) async throws(HTTPClientError) -> Value {
        try await send(Self.acceptingJSON(request)).decode(Value.self, using: decoder)
    }
}
