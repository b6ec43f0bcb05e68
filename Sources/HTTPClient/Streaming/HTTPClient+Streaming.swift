import Foundation

extension HTTPClient {
    /// The most of a rejected streamed response's body kept in its ``HTTPClientError``.
    static let rejectedStreamBodyLimit = 1 << 20

    /// Sends `request` and returns as soon as the response headers arrive, with the body to
    /// read as it comes (``StreamedResponse/chunks``, or ``StreamedResponse/serverSentEvents(maximumEventSize:)``).
    ///
    /// Interceptors, validation, retries and ``onEvent`` apply as to ``send(_:)``, up to the
    /// headers: a response the validation rejects throws ``HTTPClientError/unacceptableStatus(_:)``
    /// with up to 1 MiB of its body, and may be retried; once the caller has the stream nothing
    /// is repeated, so a transfer cut short throws from the stream. Cancelling the calling task,
    /// or letting the stream go, cancels the request.
    public func stream(_ request: Request) async throws(HTTPClientError) -> StreamedResponse {
        try await run(request) { urlRequest, validation, number in
            await streamAttempt(urlRequest, validation: validation, number: number)
        }.get()
    }

    /// Sends `request` and hands each chunk of the body to `receive` as it arrives, then calls
    /// `completion` once: with the response's head (its `body` empty) when the body is complete,
    /// or with the error (see ``stream(_:)``). `receive` is called in order, never concurrently.
    ///
    /// - Returns: The started task; cancel it to end the stream with ``HTTPClientError/cancelled``.
    @_disfavoredOverload @discardableResult
    public func stream(
        _ request: Request, receive: @escaping @Sendable (Data) -> Void,
        completion: @escaping @Sendable (Result<Response, HTTPClientError>) -> Void
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
    ) async -> Result<
        StreamedResponse, HTTPClientError
    > {
        if Task.isCancelled { return .failure(.cancelled) }
        let started = DispatchTime.now().uptimeNanoseconds
        let result: Result<StreamedResponse, HTTPClientError>
        do {
            let (stream, response) = try await session.chunks(for: urlRequest)
            let chunks = BodyChunks(stream, url: response.url ?? urlRequest.url)
            if let http = response as? HTTPURLResponse {
                var head = Response(http, body: nil)
                if head.url == nil { head.url = urlRequest.url }
                if validation.accepts(head) {
                    result = .success(StreamedResponse(head: head, chunks: chunks))
                } else {
                    // The error carries what a rejected answer says, within a bound.
                    head.body = (try? await chunks.collect(upTo: Self.rejectedStreamBodyLimit)) ?? Data()
                    result = .failure(.unacceptableStatus(head))
                }
            } else {
                result = .failure(.nonHTTPResponse(url: response.url ?? urlRequest.url))
            }
        } catch {
            result = .failure(Task.isCancelled ? .cancelled : HTTPClientError(transportError: error, url: urlRequest.url))
        }
        report(urlRequest, result.map(\.head), attempt: number, started: started)
        return result
    }
}
