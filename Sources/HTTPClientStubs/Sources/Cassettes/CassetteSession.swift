import Foundation
import HTTPClient

/// A session that replays a cassette and, depending on its ``RecordMode``, records what it does
/// not have by passing requests to a real session.
///
/// ```swift
/// let session = try CassetteSession(file: cassetteURL)          // replay only (mode .none)
/// let client = HTTPClient(session: session)
/// ```
///
/// Re-record without editing tests: `HTTPCLIENT_RECORD_MODE=all swift test`. It is a
/// ``MockURLSession`` over ``stubs``, with the cassette registered there (see
/// ``StubRegistry/replay(_:matching:redaction:replaysTiming:)``) and the recorder as its
/// pass-through: replayed and recorded requests go through the one exchange, so cookies,
/// redirects, the cache, timeouts, held responses and verification behave as for any stub. A
/// request the cassette does not have is, in modes that record, a pass-through to `upstream`
/// (recorded: the registry lets every request through, so `stubs.stopPassingThrough()` ends the
/// recording and misses fail from then on); otherwise it fails with the stub engine's unmatched
/// report. Which answer a
/// request gets, when the cassette and stubs of your own both match, follows the one order
/// (the article "Stubbing and verification", section "The order
/// answers are tried in").
public final class CassetteSession: URLSessionProtocol, Sendable {
    /// The cassette file.
    package let file: URL
    /// When requests go to the network and are recorded.
    package let mode: RecordMode
    /// The engine that replays: verify and inspect it as any registry.
    public let stubs: StubRegistry
    /// Whether a streamed response is replayed with the pauses it was recorded with.
    package let replaysTiming: Bool
    /// The transport every request goes through.
    private let session: MockURLSession
    private let recorder: CassetteRecorder

    /// Opens the cassette at `file` in the mode `HTTPCLIENT_RECORD_MODE` names (`.none` when it
    /// is not set), so a developer can re-record without editing the test.
    ///
    /// - Throws: ``CassetteError/unknownRecordMode(_:)`` for an unknown mode name; otherwise as
    ///   ``init(file:mode:upstream:matching:redaction:replaysTiming:reporting:fileID:filePath:line:column:)``.
    public convenience init(
        file: URL,
        upstream: any URLSessionProtocol = URLSession.shared,
        matching: CassetteMatching = CassetteMatching(),
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
    ///   - replaysTiming: Each answer comes as late as it was recorded (so a request whose
    ///     timeout is shorter times out), and streamed responses (recorded through
    ///     `chunks(for:)`) keep the pauses between their chunks; by default answers come at once.
    ///   - reporting: Where unmatched requests are reported.
    ///   - fileID: Where this is called (with `filePath`, `line` and `column`): failures the
    ///     registry reports point here. Leave the defaults.
    ///   - filePath: See `fileID`.
    ///   - line: See `fileID`.
    ///   - column: See `fileID`.
    /// - Throws: ``CassetteError`` for a missing (in mode `none`), corrupt or unknown-version
    ///   cassette, or a path that is not a regular file (nor a link to one), naming the file.
    public convenience init(
        file: URL,
        mode: RecordMode,
        upstream: any URLSessionProtocol = URLSession.shared,
        matching: CassetteMatching = CassetteMatching(),
        redaction: Redaction = .standard,
        replaysTiming: Bool = false,
        reporting: FailureReporting = .automatic,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) throws {
        let stubs = StubRegistry(
            "cassette \(file.lastPathComponent)", reporting: reporting,
            fileID: fileID, filePath: filePath, line: line, column: column)
        try self.init(
            file: file, mode: mode, upstream: upstream, matching: matching, redaction: redaction, replaysTiming: replaysTiming,
            stubs: stubs, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Opens the cassette at `file` into `stubs`, a registry made for it (a test's, with its
    /// name and its reporting).
    ///
    /// - Parameter seed: What to replay while `file` does not exist, as if it held it (an
    ///   archive another tool recorded). Replayed as it is; in ``RecordMode/newEpisodes`` the
    ///   file is written with it, redacted, and the exchanges recorded after it.
    package init(
        file: URL, mode: RecordMode, upstream: any URLSessionProtocol, matching: CassetteMatching, redaction: Redaction,
        replaysTiming: Bool, stubs: StubRegistry, seed: Cassette? = nil,
        fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
    ) throws {
        let seed = FileManager.default.fileExists(atPath: file.path) ? nil : seed
        let exists = seed != nil || FileManager.default.fileExists(atPath: file.path)
        self.file = file
        self.mode = mode
        self.replaysTiming = replaysTiming
        self.stubs = stubs
        let (records, replays) = try mode.plan(for: file, exists: exists)
        let cassette = replays && exists ? try seed ?? Cassette(contentsOf: file) : Cassette()
        // A cassette that cannot be written fails here, not at the first exchange recorded.
        if records { _ = try Cassette.writableFile(file) }
        // Written redacted, as every exchange recorded here: another tool's archive may not be.
        let written = seed != nil && replays ? Cassette(interactions: cassette.interactions.map(redaction.apply)) : cassette
        recorder = CassetteRecorder(
            upstream: upstream, file: file, cassette: written, redaction: redaction, records: records
        ) { [stubs] interaction, index in
            // Recorded while replaying: the new exchange answers the next such request.
            if replays {
                stubs.replay(
                    Cassette(interactions: [interaction]), matching: matching, redaction: redaction, replaysTiming: replaysTiming,
                    file: file, firstInteraction: index)
            }
        }
        stubs.replay(cassette, matching: matching, redaction: redaction, replaysTiming: replaysTiming, file: file, firstInteraction: 0)
        // What the cassette does not answer is recorded: it goes to the recorder, not the report.
        if records { stubs.passThrough(.any) }
        session = MockURLSession(
            stubs: stubs, simulatesLatency: replaysTiming, passthroughSession: recorder,
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// The interactions recorded or loaded so far.
    package var cassette: Cassette { recorder.cassette }

    /// Whether exchanges the cassette does not have are recorded into it.
    package var records: Bool { recorder.records }

    // MARK: URLSessionProtocol

    public func makeDataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any URLSessionDataTaskProtocol {
        session.makeDataTask(with: request, completionHandler: completionHandler)
    }

    /// Replays a recorded stream chunk by chunk (with its pauses when made with `replaysTiming: true`), or
    /// records one: the caller gets each chunk as it comes from `upstream`, and the exchange is
    /// saved with its chunks once the body is complete (a transfer cut short is not saved).
    public func chunks(for request: URLRequest) async throws -> (ChunkStream, URLResponse) {
        try await session.chunks(for: request)
    }
}
