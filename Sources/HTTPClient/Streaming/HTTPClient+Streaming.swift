import Foundation

extension HTTPClient {
    /// The most of a rejected streamed response's body kept in its ``HTTPClientError``.
    static let rejectedStreamBodyLimit = 1 << 20

    /// Sends `request` and returns as soon as the response headers arrive, with the body to
    /// read as it comes: ``StreamedResponse/chunks``, as they are or as `chunks.serverSentEvents()`.
    ///
    /// Interceptors, validation, retries and ``onEvent`` apply as to ``send(_:)``, up to the
    /// headers: a response the validation rejects throws ``HTTPClientError/unacceptableStatus(_:)``
    /// with up to 1 MiB of its body, and may be retried; once the caller has the stream nothing
    /// is repeated, so a transfer cut short throws from the stream. Cancelling the calling task,
    /// or letting the stream go, cancels the request.
    ///
    /// - Parameter request: The request; its response body is read as it comes, not decoded.
    public func stream(_ request: Request<Data>) async throws(HTTPClientError) -> StreamedResponse {
        try await run(request) { urlRequest, validation, number in
            await streamAttempt(urlRequest, validation: validation, number: number)
        }.get()
    }

    /// Sends `request` and hands each chunk of the body to `receive` as it arrives, then calls
    /// `completion` once: with the response's head (its `body` empty) when the body is complete,
    /// or with the error (see ``stream(_:)``). `receive` is called in order, never concurrently.
    ///
    /// - Parameters:
    ///   - request: The request; its response body is read as it comes, not decoded.
    ///   - receive: Called with each chunk, in order.
    ///   - completion: Called once with the head or the error.
    /// - Returns: The started task; cancel it to end the stream with ``HTTPClientError/cancelled``.
    @_disfavoredOverload @discardableResult
    public func stream(
        _ request: Request<Data>, receive: @escaping @Sendable (Data) -> Void,
        completion: @escaping @Sendable (Result<Response<Data>, HTTPClientError>) -> Void
    ) -> any URLSessionDataTaskProtocol {
        PipelineTask(
            Task {
                do throws(HTTPClientError) {
                    let streamed = try await stream(request)
                    for try await chunk in streamed.chunks { receive(chunk) }
                    completion(Task.isCancelled ? .failure(.cancelled) : .success(streamed.head))
                } catch {
                    completion(.failure(error))
                }
            })
    }

    /// One attempt of a stream: the session's `chunks(for:)`, validated on its head.
    private func streamAttempt(
        _ urlRequest: URLRequest, validation: Validation, number: Int
    ) async -> Result<StreamedResponse, HTTPClientError> {
        await measuredAttempt(urlRequest, number: number, head: \.head) {
            let (stream, response) = try await session.chunks(for: urlRequest)
            let chunks = BodyChunks(stream, url: response.url ?? urlRequest.url)
            switch Self.response(response, body: nil, request: urlRequest) {
            case .failure(let error):
                return .failure(error)
            case .success(var head):
                if let rejection = validation.rejection(of: head) {
                    // The error carries what a rejected answer says, within a bound.
                    head.body = (try? await chunks.collect(upTo: Self.rejectedStreamBodyLimit)) ?? Data()
                    return .failure(rejection.error(for: head))
                }
                return .success(StreamedResponse(head: head, chunks: chunks))
            }
        }
    }
}
