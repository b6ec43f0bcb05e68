import Foundation
import HTTPClient

/// Where a ``CassetteSession`` lets through the requests its cassette does not answer: it sends
/// them to the real session and, when the mode records, saves each exchange to the cassette.
///
/// It is the pass-through session of the exchange, so a recorded request got the session's
/// cookies, cache and timeout on its way here like any other.
final class CassetteRecorder: URLSessionProtocol, Sendable {
    let upstream: any URLSessionProtocol
    /// Whether exchanges are saved: false when a pass-through is only sent.
    let records: Bool
    private let writer: CassetteWriter
    /// Told of each saved exchange and its place in the cassette, to make it answerable at once.
    private let saved: @Sendable (Cassette.Interaction, Int) -> Void

    init(
        upstream: any URLSessionProtocol, file: URL, cassette: Cassette, redaction: Redaction, records: Bool,
        saved: @escaping @Sendable (Cassette.Interaction, Int) -> Void
    ) {
        self.upstream = upstream
        self.records = records
        writer = CassetteWriter(file: file, cassette: cassette, redaction: redaction)
        self.saved = saved
    }

    /// The interactions loaded and recorded so far.
    var cassette: Cassette { writer.cassette }

    func makeDataTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any URLSessionDataTaskProtocol {
        guard records else { return upstream.makeDataTask(with: request, completionHandler: completionHandler) }
        let sent = RecordedRequest(request)
        let started = Date()
        return upstream.makeDataTask(with: sent.urlRequest) { [self] data, response, error in
            guard error == nil, let http = response as? HTTPURLResponse else {
                completionHandler(data, response, error)
                return
            }
            do {
                try save(Self.interaction(sent, http, data ?? Data(), duration: Date().timeIntervalSince(started)))
                completionHandler(data, response, nil)
            } catch {
                completionHandler(nil, nil, error)
            }
        }
    }

    /// Relays `upstream`'s chunks as they come, and saves the exchange with its chunks once the
    /// body is complete (a transfer cut short is not saved).
    func chunks(for request: URLRequest) async throws -> (ChunkStream, URLResponse) {
        guard records else { return try await upstream.chunks(for: request) }
        let sent = RecordedRequest(request)
        let started = Date()
        let (upstreamChunks, response) = try await upstream.chunks(for: sent.urlRequest)
        guard let http = response as? HTTPURLResponse else { return (upstreamChunks, response) }
        let headersAt = Date()
        let (stream, relay) = ChunkStream.makeStream()
        let recording = Task { [self] in
            var body = Data()
            var chunks: [Cassette.Chunk] = []
            do {
                for try await chunk in upstreamChunks {
                    body.append(chunk)
                    // Milliseconds are enough to replay a stream's rhythm.
                    chunks.append(Cassette.Chunk(at: (Date().timeIntervalSince(headersAt) * 1000).rounded() / 1000, bytes: chunk.count))
                    // Waits while the reader's window is full, so upstream is read no faster.
                    guard await relay.send(chunk) else { return }
                }
                // A consumer that let the stream go ended the loop early: not a complete body.
                guard !Task.isCancelled else { return }
                var interaction = Self.interaction(sent, http, body, duration: Date().timeIntervalSince(started))
                interaction.response.chunks = chunks
                try save(interaction)
                relay.finish()
            } catch {
                relay.finish(throwing: error)
            }
        }
        relay.onTermination = { recording.cancel() }
        return (stream, response)
    }

    /// Saves the exchange (see ``CassetteWriter/save(_:)``), then hands it on.
    private func save(_ raw: Cassette.Interaction) throws {
        let (interaction, index) = try writer.save(raw)
        saved(interaction, index)
    }

    private static func interaction(
        _ request: RecordedRequest, _ response: HTTPURLResponse, _ body: Data, duration: TimeInterval
    ) -> Cassette.Interaction {
        Cassette.Interaction(
            request: Cassette.Request(
                method: request.method.rawValue, url: request.url.absoluteString,
                headers: request.headers.map { Cassette.Header(name: $0.name, value: $0.value) },
                body: request.body.isEmpty ? nil : Cassette.Body(request.body)),
            response: Cassette.Response(
                status: response.statusCode,
                headers: HTTPClient.Response<Data>(response, body: nil).headers.map { Cassette.Header(name: $0.name, value: $0.value) },
                body: body.isEmpty ? nil : Cassette.Body(body)),
            duration: duration)
    }
}
