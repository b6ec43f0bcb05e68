import Foundation

extension HTTPClient {
    /// Sends `request` and returns the response, its ``Response/value`` decoded as the request
    /// asks (`Data`: the body as it came).
    ///
    /// ```swift
    /// let response = try await client.send(HTTPClient.Request<User>.get("users/1"))
    /// print(response.statusCode, response.value.name)
    /// ```
    ///
    /// Cancelling the calling Swift `Task` cancels the data task; the call then throws
    /// ``HTTPClientError/cancelled``.
    ///
    /// - Parameter request: What to send, and what its body decodes to.
    public func send<Value>(_ request: Request<Value>) async throws(HTTPClientError) -> Response<Value> {
        try await run(request).get()
    }
}
