import Foundation
import HTTPClient

/// A canned answer to a request: an HTTP response, a transport error, or an answer computed
/// from the request; with optional latency and download speed.
///
/// ```swift
/// session.enqueue(.status(503), try .json(user))            // 503, then 200 with JSON
/// stubs.stub(.get, "/users/{id}").respond(.computed { request in
///     .json(raw: #"{"id": \#(request.pathParameters["id"] ?? "0")}"#)
/// })
/// stubs.stub(.get, "/big").respond(.status(200, body: data).throttled(to: .threeG))
/// ```
public struct MockResponse: Sendable {
    /// What the transport delivers: built with the static builders below, one spelling each.
    package enum Outcome: Sendable {
        /// An HTTP response.
        case http(statusCode: Int, headers: HTTPHeaders, body: Data)
        /// A transport error, delivered as the completion's `error`.
        case failure(any Error)
        /// An answer built from the request when it arrives. A thrown error is delivered as
        /// the transport error.
        case computed(@Sendable (RecordedRequest) throws -> MockResponse)
        /// Exactly what a data task's completion handler receives, however unusual (a response
        /// that is not HTTP, data alongside an error): how `MockURLSession`'s `next...` values
        /// are delivered.
        case completion(data: Data?, response: URLResponse?, error: (any Error)?)
    }

    /// What the response is: an HTTP answer, a failure, or raw completion-handler values.
    package var outcome: Outcome
    /// Seconds to wait before the response headers arrive. Honoured by the URLProtocol
    /// transport, and by `MockURLSession` when created with `simulatesLatency: true`.
    package var latency: TimeInterval = 0
    /// How fast the body downloads after the headers; `nil` is instant.
    package var throughput: Throughput?
    /// The gate that holds this response until the test releases it (see ``held(by:)``).
    package var hold: HeldResponse?
    /// Whether the session's `URLCache` may store the response (`.notAllowed` unless set with
    /// ``cached(_:)``). Both transports keep the cache the same way, on every platform.
    package var cacheStoragePolicy: URLCache.StoragePolicy = .notAllowed
    /// The body in the pieces a streaming caller (`chunks(for:)`) receives; empty when the body
    /// comes whole. Whole-body callers get every piece's bytes joined (see ``streamed(status:headers:_:)``).
    package var streamParts: [StreamPart] = []
    /// Where this response comes from, when not from code: told to the request it answers
    /// (``RecordedRequest/answerSource``).
    var source: AnswerSource?
    /// How a server writes the head and frames the body (see ``reason(_:)`` and ``framedAsGiven()``).
    package var wire = WireForm()
    /// Draws the latency of each request, when the delay is random (see ``delayed(by:)-(RandomDelay)``).
    var randomDelay: RandomDelay?
    /// The `HTTPURLResponse` an `.http` outcome last made, handed to the next request for the
    /// same URL again (copies of this response share it): see ``keepingMadeResponse()``.
    private var madeResponse: MadeResponse?

    /// A response with this outcome, delivered after `latency` seconds at `throughput`.
    package init(_ outcome: Outcome, latency: TimeInterval = 0, throughput: Throughput? = nil) {
        self.outcome = outcome
        self.latency = latency
        self.throughput = throughput
    }

    // MARK: Building

    /// A response with `statusCode`, `headers` and `body`.
    public static func status(_ statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data()) -> MockResponse {
        MockResponse(.http(statusCode: statusCode, headers: headers, body: body))
    }

    /// A response whose body is `text` in UTF-8.
    public static func text(
        _ text: String, status: Int = 200, headers: HTTPHeaders = ["Content-Type": "text/plain; charset=utf-8"]
    ) -> MockResponse {
        .status(status, headers: headers, body: Data(text.utf8))
    }

    /// A response whose body is `value` encoded as JSON, with `Content-Type: application/json`.
    ///
    /// - Throws: What `encoder` throws, so a test cannot silently stub an empty body.
    public static func json(
        _ value: some Encodable, status: Int = 200, headers: HTTPHeaders = [:], encoder: JSONEncoder = JSONEncoder()
    ) throws -> MockResponse {
        .json(raw: try encoder.encode(value), status: status, headers: headers)
    }

    /// A response whose body is JSON text written by hand: `.json(raw: #"{"id": 1}"#)`.
    public static func json(raw: String, status: Int = 200, headers: HTTPHeaders = [:]) -> MockResponse {
        .json(raw: Data(raw.utf8), status: status, headers: headers)
    }

    /// A response whose body is JSON bytes.
    static func json(raw: Data, status: Int = 200, headers: HTTPHeaders = [:]) -> MockResponse {
        var headers = headers
        if headers["Content-Type"] == nil { headers["Content-Type"] = "application/json" }
        return .status(status, headers: headers, body: raw)
    }

    /// A response whose body is the file at `fileURL`, read when a request arrives. A missing
    /// file is delivered as a ``ResponseFileError/unreadable(file:reason:)`` error, and a URL
    /// that is not a `file:` URL as ``ResponseFileError/notAFileURL(_:)`` (nothing is downloaded).
    public static func file(_ fileURL: URL, status: Int = 200, headers: HTTPHeaders = [:]) -> MockResponse {
        guard fileURL.isFileURL else { return .error(ResponseFileError.notAFileURL(fileURL.absoluteString)) }
        return .computed { _ in
            // Never blocks: a FIFO or a device in the file's place is refused, not read.
            switch FileKind.contentsOfRegularFile(at: fileURL) {
            case .success(let data): return .status(status, headers: headers, body: data)
            case .failure(let unreadable): throw ResponseFileError.unreadable(file: fileURL.path, reason: unreadable.reason)
            }
        }
    }

    /// A transport error such as `URLError(.timedOut)`.
    public static func error(_ error: any Error) -> MockResponse {
        MockResponse(.failure(error))
    }

    /// An answer computed from the request (its path parameters, query, body...).
    public static func computed(_ build: @escaping @Sendable (RecordedRequest) throws -> MockResponse) -> MockResponse {
        MockResponse(.computed(build))
    }

    /// Answers 200 with the request's own body and `Content-Type`.
    public static let echo = MockResponse.computed { request in
        var headers: HTTPHeaders = [:]
        if let type = request.headers["Content-Type"] { headers["Content-Type"] = type }
        return .status(200, headers: headers, body: request.body)
    }

    // MARK: Timing

    /// The same response after `seconds` of latency.
    public func delayed(by seconds: TimeInterval) -> MockResponse {
        var copy = self
        copy.latency = seconds
        copy.randomDelay = nil
        return copy
    }

    /// The same response after a latency drawn for each request from `delay`, a seeded
    /// distribution: the same seed gives the same delays in the same order.
    ///
    /// ```swift
    /// stubs.stub(.get, "/search").respond(.json(raw: "[]").delayed(by: .logNormal(median: 0.08, sigma: 0.4, seed: 7)))
    /// ```
    public func delayed(by delay: RandomDelay) -> MockResponse {
        var copy = self
        copy.randomDelay = delay
        return copy
    }

    /// The same response with its body downloading at `throughput`.
    public func throttled(to throughput: Throughput) -> MockResponse {
        var copy = self
        copy.throughput = throughput
        return copy
    }

    /// A response whose body arrives in pieces: each `.data` part is one chunk for a caller
    /// that streams (`chunks(for:)`, `HTTPClient.stream`), `.pause` parts wait between them where
    /// timing is simulated, and a `.failure` part cuts the transfer short. A caller of the whole
    /// body gets all the bytes joined, or the failure.
    public static func streamed(status: Int = 200, headers: HTTPHeaders = [:], _ parts: [StreamPart]) -> MockResponse {
        // Appended part by part: `Data(joined())` copies byte by byte (seconds for 16 MB).
        let body = parts.reduce(into: Data()) { body, part in part.data.map { body.append($0) } }
        var response = MockResponse.status(status, headers: headers, body: body)
        response.streamParts = parts
        return response
    }

    /// A `text/event-stream` response with one chunk per event, `pause` seconds apart.
    public static func serverSentEvents(_ events: [ServerSentEvent], pause: TimeInterval = 0, headers: HTTPHeaders = [:]) -> MockResponse {
        var headers = headers
        if headers["Content-Type"] == nil { headers["Content-Type"] = "text/event-stream" }
        var previous: ServerSentEvent?
        var parts: [StreamPart] = []
        for event in events {
            if pause > 0, !parts.isEmpty { parts.append(.pause(pause)) }
            parts.append(.text(event.encoded(after: previous)))
            previous = event
        }
        return .streamed(headers: headers, parts)
    }

    /// The same response, held until `hold` is released (see ``HeldResponse``).
    public func held(by hold: HeldResponse) -> MockResponse {
        var copy = self
        copy.hold = hold
        return copy
    }

    /// The same response, which the session's `URLCache` may store as `policy` says: a GET
    /// answered 2xx is stored unless `Cache-Control: no-store`, and later requests are answered
    /// from the cache as their cache policy and the response's freshness (`max-age`, `Expires`)
    /// allow; a stale answer with an `ETag` or `Last-Modified` is revalidated, and a `304` from
    /// the stub delivers the stored body.
    public func cached(_ policy: URLCache.StoragePolicy = .allowed) -> MockResponse {
        var copy = self
        copy.cacheStoragePolicy = policy
        return copy
    }

    /// The body's parts as the transports deliver them: the streamed parts (or the whole body
    /// as one part) cut into timed chunks at ``throughput``; the streamed parts alone, or none
    /// (the body comes whole), when the response is not throttled.
    func deliveredParts(body: Data?) -> [StreamPart] {
        guard let throughput else { return streamParts }
        return throughput.throttling(streamParts.isEmpty ? [.data(body ?? Data())] : streamParts)
    }

    // MARK: Delivering

    /// Evaluates computed outcomes (keeping this response's timing unless the computed one has its own).
    /// This response, keeping the `HTTPURLResponse` it makes for the next request to the same
    /// URL: for a response given again and again (a stub's), not one built per request.
    func keepingMadeResponse() -> MockResponse {
        guard case .http = outcome, madeResponse == nil else { return self }
        var copy = self
        copy.madeResponse = MadeResponse()
        return copy
    }

    func resolved(for request: RecordedRequest) -> MockResponse {
        guard case .computed(let build) = outcome else {
            guard let randomDelay else { return self }
            var drawn = self
            drawn.latency = randomDelay.next()
            return drawn
        }
        var result: MockResponse
        do {
            result = try build(request).resolved(for: request)
        } catch {
            result = .error(error)
        }
        if result.latency == 0 { result.latency = randomDelay?.next() ?? latency }
        if result.throughput == nil { result.throughput = throughput }
        if result.hold == nil { result.hold = hold }
        if result.cacheStoragePolicy == .notAllowed { result.cacheStoragePolicy = cacheStoragePolicy }
        if result.streamParts.isEmpty { result.streamParts = streamParts }
        if result.source == nil { result.source = source }
        if result.wire == WireForm() { result.wire = wire }
        return result
    }

    /// The triple a data task's completion handler receives for `request`.
    package func completionArguments(for request: URLRequest) -> (Data?, URLResponse?, (any Error)?) {
        switch outcome {
        case .computed:
            // resolved(for:) never returns a computed outcome, so this recurses once.
            return resolved(for: RecordedRequest(request)).completionArguments(for: request)
        case .failure(let error):
            return (nil, nil, error)
        case .completion(let data, let response, let error):
            return (data, response, error)
        case .http(let statusCode, let headers, let body):
            guard let url = request.url,
                let response = madeResponse?.response(url: url, statusCode: statusCode, headers: headers)
                    ?? HTTPURLResponse.make(url: url, statusCode: statusCode, headers: headers)
            else {
                return (nil, nil, URLError(.badURL))
            }
            if let failure = streamParts.lazy.compactMap(\.failure).first { return (nil, response, failure) }
            return (body, response, nil)
        }
    }
}
