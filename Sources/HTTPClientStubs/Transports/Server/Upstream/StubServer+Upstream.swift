import Foundation
import HTTPClient

extension StubServer {
    /// Where a ``StubServer`` sends the requests nothing else answers, and the file it records
    /// their exchanges to.
    ///
    /// ```swift
    /// var configuration = StubServer.Configuration()
    /// configuration.upstream = .init(URL(string: "https://api.example.com")!, recordingTo: cassetteURL, mode: .once)
    /// let server = try StubServer(stubs, configuration: configuration)
    /// ```
    ///
    /// A request no stub answers (nor the registry's unmatched answer) goes to the upstream, its
    /// path and query under the upstream's URL, with the client's headers less the hop-by-hop
    /// ones (`Connection` and those it names, `Keep-Alive`, `TE`, `Trailer`, `Transfer-Encoding`,
    /// `Upgrade`, `Proxy-*`), its `Host` the upstream's, and its `Accept-Encoding` the session's
    /// own (which decodes the body). The answer goes back as the upstream gave it, body decoded,
    /// a redirect not followed (a `Location` under the upstream points at this server), once the
    /// body is complete. The wait costs no thread.
    ///
    /// With a file, each forwarded exchange is recorded there as a cassette records it (redacted,
    /// refused if a secret would be written, the whole file replaced atomically after each one,
    /// so it is complete whenever the server stops), and the file's exchanges answer as a
    /// replayed cassette does, in the ``RecordMode``'s way: `none` replays and forwards nothing,
    /// `once` records when the file does not exist and otherwise only replays, `newEpisodes`
    /// replays and records what it does not have, `all` records everything again. A file whose
    /// name ends in `.har` is a HAR 1.2 archive.
    public struct Upstream: Sendable {
        /// The upstream's URL: its path, when it has one, is the root of this server's paths.
        public var url: URL
        /// The file exchanges are recorded to and replayed from; `nil` records nothing.
        public var recordingFile: URL?
        /// When exchanges are recorded, and whether the file's are replayed.
        public var mode: RecordMode
        /// What is hidden before an exchange is written; `.standard` by default.
        public var redaction: Redaction
        /// The most bytes of an upstream's body the server takes (64 MiB by default): a larger
        /// one is answered 502, saying so, and nothing is recorded.
        public var maximumBodyBytes = 64 * 1024 * 1024
        /// Seconds the upstream may stay quiet (nothing of its head or body coming) before the
        /// request is answered 502 (60 by default).
        public var timeout: TimeInterval = 60

        /// Forwards what nothing else answers to `url`, and records nothing.
        public init(_ url: URL) {
            self.url = url
            recordingFile = nil
            mode = .none
            redaction = .standard
        }

        /// Forwards what nothing else answers to `url`, recording the exchanges to `file` in `mode`.
        /// - Parameters:
        ///   - url: The upstream.
        ///   - file: The cassette (or, named `.har`, the HAR archive) to record to and replay from.
        ///   - mode: When to record, and whether the file's exchanges answer.
        ///   - redaction: What is hidden before anything is written.
        public init(_ url: URL, recordingTo file: URL, mode: RecordMode, redaction: Redaction = .standard) {
            self.url = url
            recordingFile = file
            self.mode = mode
            self.redaction = redaction
        }
    }
}
