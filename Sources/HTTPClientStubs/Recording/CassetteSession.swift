import Foundation
import HTTPClient

/// A session that replays a cassette through the stub engine and, depending on its
/// ``RecordMode``, records what it does not have by passing requests to a real session.
///
/// ```swift
/// let session = try CassetteSession(file: cassetteURL)          // replay only (mode .none)
/// let client = HTTPClient(session: session)
/// ```
///
/// Re-record without editing tests: `HTTPCLIENT_RECORD_MODE=all swift test`. Replayed requests
/// are answered synchronously, like `MockURLSession`; a request the cassette does not have
/// fails with the stub engine's unmatched report (in modes `none` and `once` with a cassette).
public final class CassetteSession: URLSessionProtocol, Sendable {
    /// The cassette file.
    public let file: URL
    /// When requests go to the network and are recorded.
    public let mode: RecordMode
    /// The engine that replays: verify and inspect it as any registry.
    public let stubs: StubRegistry
    let upstream: any URLSessionProtocol
    let matching: CassetteMatching
    let redaction: Redaction
    private let recorded: Locked<Cassette>
    /// Whether recorded exchanges are saved: false in replay-only use.
    private let records: Bool
    /// Whether known exchanges are replayed: false when re-recording everything.
    private let replays: Bool
    /// Whether a streamed response is replayed with the pauses it was recorded with.
    public let replaysTiming: Bool

    /// Opens the cassette at `file` in the mode `HTTPCLIENT_RECORD_MODE` names (`.none` when it
    /// is not set), so a developer can re-record without editing the test.
    ///
    /// - Throws: ``CassetteError/unknownRecordMode(_:)`` for an unknown mode name; otherwise as
    ///   ``init(file:mode:upstream:matching:redaction:replaysTiming:reporting:fileID:filePath:line:column:)``.
    public convenience init(
        file: URL,
        upstream: any URLSessionProtocol = URLSession.shared,
        matching: CassetteMatching = .methodAndURL,
        redaction: Redaction = .standard,
        replaysTiming: Bool = false,
        reporting: FailureReporting = .automatic,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) throws {
        try self.init(
            file: file, mode: RecordMode.fromEnvironment(), upstream: upstream, matching: matching, redaction: redaction,
            replaysTiming: replaysTiming, reporting: reporting, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Opens (or prepares to record) the cassette at `file`.
    ///
    /// - Parameters:
    ///   - file: The cassette file: read when it exists, written when recording.
    ///   - mode: When to record.
    ///   - upstream: The real session requests go to when recording.
    ///   - matching: What a recorded exchange must match besides method and URL.
    ///   - redaction: What is hidden before anything is written; on by default.
    ///   - replaysTiming: Streamed responses (recorded through `chunks(for:)`) are replayed with
    ///     the pauses between their chunks; by default the chunks come at once.
    ///   - reporting: Where unmatched requests are reported.
    ///   - fileID: Where this is called (with `filePath`, `line` and `column`): failures the
    ///     registry reports point here. Leave the defaults.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    /// - Throws: ``CassetteError`` for a missing (in mode `none`), corrupt or unknown-version
    ///   cassette, naming the file.
    public init(
        file: URL,
        mode: RecordMode,
        upstream: any URLSessionProtocol = URLSession.shared,
        matching: CassetteMatching = .methodAndURL,
        redaction: Redaction = .standard,
        replaysTiming: Bool = false,
        reporting: FailureReporting = .automatic,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) throws {
        let exists = FileManager.default.fileExists(atPath: file.path)
        self.file = file
        self.mode = mode
        self.upstream = upstream
        self.matching = matching
        self.redaction = redaction
        self.replaysTiming = replaysTiming
        stubs = StubRegistry(
            "cassette \(file.lastPathComponent)", reporting: reporting,
            fileID: fileID, filePath: filePath, line: line, column: column)
        switch mode {
        case .none:
            guard exists else {
                throw CassetteError.unreadable(
                    file: file.path,
                    reason: "there is no cassette here; record it first with record mode once "
                        + "(\(RecordMode.environmentVariable)=once, or httpc --record-mode once)")
            }
            (records, replays) = (false, true)
        case .once:
            (records, replays) = (!exists, exists)
        case .newEpisodes:
            (records, replays) = (true, true)
        case .all:
            (records, replays) = (true, false)
        }
        let cassette = replays && exists ? try Cassette(contentsOf: file) : Cassette()
        recorded = Locked(cassette)
        stubs.replay(cassette, matching: matching, redaction: redaction, replaysTiming: replaysTiming)
    }

    /// The interactions recorded or loaded so far.
    public var cassette: Cassette { recorded.current }

    // MARK: URLSessionProtocol

    public func makeDataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any URLSessionDataTaskProtocol {
        if replays {
            let resolution = stubs.resolve(request, reportingMisses: !records)
            switch resolution {
            case .unmatched where records, .passthrough:
                break  // recorded from the real session below
            case .respond(let response, let recorded, let stub):
                // Replayed as recorded: the recording session already followed redirects.
                var delivery = Delivery(request: recorded.urlRequest, arguments: response.completionArguments(for: recorded.urlRequest))
                delivery.answered = [(stub, recorded)]
                return MockURLSessionDataTask(answering: delivery, completion: completionHandler)
            case .unmatched(let error):
                return MockURLSessionDataTask(answering: Delivery(request: request, error: error), completion: completionHandler)
            case .failed(let error):
                return MockURLSessionDataTask(answering: Delivery(request: request, error: error), completion: completionHandler)
            }
        }
        return record(request, completionHandler: completionHandler)
    }

    /// Sends `request` to `upstream`, and records the exchange when the mode records (a
    /// pass-through in a mode that does not is only sent).
    private func record(
        _ request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
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

    /// Replays a recorded stream chunk by chunk (with its pauses when ``replaysTiming``), or
    /// records one: the caller gets each chunk as it comes from `upstream`, and the exchange is
    /// saved with its chunks once the body is complete (a transfer cut short is not saved).
    public func chunks(for request: URLRequest) async throws -> (ChunkStream, URLResponse) {
        if replays {
            switch stubs.resolve(request, reportingMisses: !records) {
            case .unmatched where records, .passthrough:
                break  // recorded from the real session below
            case .respond(let response, let recorded, let stub):
                var delivery = Delivery(request: recorded.urlRequest, arguments: response.completionArguments(for: recorded.urlRequest))
                delivery.parts = response.streamParts
                let (stream, chunks) = ChunkStream.makeStream()
                let urlResponse = try ChunkFeed.feed(delivery, to: chunks, waitingOutPauses: replaysTiming).get()
                stub.noteDelivered(recorded)
                return (stream, urlResponse)
            case .unmatched(let error):
                throw error
            case .failed(let error):
                throw error
            }
        }
        guard records else { return try await upstream.chunks(for: request) }  // a pass-through, not recorded
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

    /// Redacts, appends, writes atomically (refusing registered secrets and the values the rules
    /// hid in this exchange) and, when replaying, makes the new exchange answerable at once.
    private func save(_ raw: Cassette.Interaction) throws {
        let interaction = redaction.apply(to: raw)
        let refused = redaction.scrubbing(raw)
        try recorded.withLock { cassette in
            var updated = cassette
            updated.interactions.append(interaction)
            try updated.write(to: file, refusing: refused)
            cassette = updated
        }
        if replays {
            stubs.replay(Cassette(interactions: [interaction]), matching: matching, redaction: redaction, replaysTiming: replaysTiming)
        }
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
