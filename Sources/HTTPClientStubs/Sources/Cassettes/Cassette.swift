import Foundation
import HTTPClient

/// Recorded HTTP exchanges, stored as versioned, human-diffable JSON (pretty printed, sorted
/// keys, text bodies readable, binary bodies in base64).
public struct Cassette: Sendable, Equatable {
    /// The format version this library writes and reads.
    package static let currentVersion = 1

    /// The recorded exchanges, in the order they happened.
    package var interactions: [Interaction]

    /// A cassette holding `interactions`.
    package init(interactions: [Interaction] = []) {
        self.interactions = interactions
    }

    /// One request and the response it got.
    package struct Interaction: Sendable, Equatable, Codable {
        /// The request as sent (redacted).
        package var request: Request
        /// The response as received (redacted).
        package var response: Response
        /// Seconds the exchange took when it was recorded.
        package var duration: TimeInterval
        /// When it was recorded.
        package var recordedAt: Date

        /// What makes this interaction impossible, or `nil`.
        var problem: String? {
            guard (100...599).contains(response.status) else { return "status \(response.status) is not in 100...599" }
            guard request.method.isHTTPToken else { return "method \"\(request.method)\" is not an HTTP method (a token such as GET)" }
            guard let components = URLComponents(string: request.url), let scheme = components.scheme?.lowercased(),
                scheme == "http" || scheme == "https", components.host?.isEmpty == false
            else { return "URL \"\(request.url)\" is not an absolute http or https URL" }
            var previous: TimeInterval = 0
            for (index, chunk) in (response.chunks ?? []).enumerated() {
                guard chunk.bytes >= 0 else { return "chunk \(index + 1) has \(chunk.bytes) bytes" }
                guard chunk.at.isFinite, chunk.at >= previous else {
                    return "chunk \(index + 1) arrives at \(chunk.at) s, not a time at or after the chunk before (\(previous) s)"
                }
                previous = chunk.at
            }
            return nil
        }

        /// An exchange with these parts.
        package init(request: Request, response: Response, duration: TimeInterval = 0, recordedAt: Date = Date()) {
            self.request = request
            self.response = response
            self.duration = duration
            // The file keeps whole seconds; so does the value, so a written cassette reads back equal.
            self.recordedAt = Date(timeIntervalSince1970: recordedAt.timeIntervalSince1970.rounded(.down))
        }
    }

    /// A recorded request.
    package struct Request: Sendable, Equatable, Codable {
        /// The method (`GET`).
        package var method: String
        /// The full URL, as sent.
        package var url: String
        /// The header fields, in order.
        package var headers: [Header]
        /// The body, when there was one.
        package var body: Body?

        /// A request with these parts.
        package init(method: String, url: String, headers: [Header] = [], body: Body? = nil) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
        }
    }

    /// A recorded response.
    package struct Response: Sendable, Equatable, Codable {
        /// The status code.
        package var status: Int
        /// The status line's reason phrase, when it is not the usual one for `status` (a HAR
        /// archive's `statusText`, such as the empty one of an HTTP/2 exchange); `nil` otherwise.
        package var reasonPhrase: String?
        /// The header fields, in order.
        package var headers: [Header]
        /// The body, when there was one (for a streamed response, every chunk joined).
        package var body: Body?
        /// How the body arrived when it was recorded through `chunks(for:)` (a stream such as
        /// server-sent events): one entry per chunk, in order; `nil` for a body read whole.
        package var chunks: [Chunk]?

        /// A response with these parts.
        package init(status: Int, reasonPhrase: String? = nil, headers: [Header] = [], body: Body? = nil, chunks: [Chunk]? = nil) {
            self.status = status
            self.reasonPhrase = reasonPhrase
            self.headers = headers
            self.body = body
            self.chunks = chunks
        }
    }

    /// One chunk of a streamed body: when it arrived and how long it was. The body itself is
    /// kept whole (so it is redacted whole: a secret split between chunks is still found);
    /// replay cuts it at these lengths, the last chunk taking what redaction added or the
    /// earlier ones what it removed.
    package struct Chunk: Sendable, Equatable, Codable {
        /// Seconds after the response headers.
        package var at: TimeInterval
        /// Bytes in the chunk as recorded.
        package var bytes: Int

        /// A chunk of `bytes` bytes that arrived `at` seconds after the headers.
        package init(at: TimeInterval, bytes: Int) {
            self.at = at
            self.bytes = bytes
        }
    }

    /// A header as a two-element array `["Name", "value"]`: ordered, repeats kept, one line each.
    package struct Header: Sendable, Equatable, Codable {
        /// The field name, as sent or received.
        package var name: String
        /// The field value.
        package var value: String

        /// A field with this name and value.
        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }

        package init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            name = try container.decode(String.self)
            value = try container.decode(String.self)
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(name)
            try container.encode(value)
        }
    }

    /// A body: `{"text": "..."}` when it is UTF-8, `{"base64": "..."}` otherwise. Either way the
    /// bytes come back exactly, and they are kept as bytes: a 100 MB text body is not copied
    /// into a `String` to be recorded.
    package struct Body: Sendable, Equatable, Codable {
        /// The bytes.
        package let data: Data
        /// Whether the bytes are UTF-8 text (written readable, as `"text"`).
        package let isText: Bool

        /// A body holding `data`; text when it is UTF-8.
        package init(_ data: Data) {
            self.data = data
            isText = UTF8Validation.isValid(data)
        }

        /// A text body.
        package static func text(_ text: String) -> Body {
            Body(data: Data(text.utf8), isText: true)
        }

        private init(data: Data, isText: Bool) {
            self.data = data
            self.isText = isText
        }

        /// The body as text, or `nil` when it is binary.
        package var text: String? { isText ? String(decoding: data, as: UTF8.self) : nil }

        /// The same kind of body with other bytes. Redaction only puts ASCII where it removes
        /// whole characters, so text stays text.
        func replacingData(_ data: Data) -> Body {
            Body(data: data, isText: isText)
        }

        /// The compression a body is still in (`gzip`, `zstd`, or its `Content-Encoding` when
        /// it is not text), or `nil` when its bytes can be searched as they are.
        func compression(headers: [Header]) -> String? {
            guard !isText else { return nil }
            if data.starts(with: [0x1F, 0x8B]) { return "gzip" }
            if data.starts(with: [0x28, 0xB5, 0x2F, 0xFD]) { return "zstd" }
            guard let encoding = headers.value(of: "Content-Encoding")?.trimmingCharacters(in: .whitespaces).lowercased(),
                !encoding.isEmpty, encoding != "identity"
            else { return nil }
            return encoding
        }

        private enum Key: String, CodingKey { case text, base64 }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            if let text = try container.decodeIfPresent(String.self, forKey: .text) {
                self = .text(text)
                return
            }
            guard let data = Data(base64Encoded: try container.decode(String.self, forKey: .base64)) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .base64, in: container, debugDescription: "the body is marked base64 but is not valid base64")
            }
            self.init(data: data, isText: false)
        }

        /// Writes `{"text": ...}` or `{"base64": ...}`. When the cassette is being written to a
        /// file, the value is a token the writer replaces with the body, streamed.
        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            let key: Key = isText ? .text : .base64
            if let bodies = encoder.userInfo[StreamedBodies.key] as? StreamedBodies {
                try container.encode(bodies.token(for: self), forKey: key)
            } else if let text {
                try container.encode(text, forKey: .text)
            } else {
                try container.encode(data.base64EncodedString(), forKey: .base64)
            }
        }
    }

    // MARK: Files

    private struct File: Codable {
        var version: Int
        var interactions: [Interaction]
    }

    private struct VersionOnly: Decodable {
        var version: Int?
    }

    /// Reads a cassette, or a HAR 1.2 archive when the file's name ends in `.har` (as
    /// ``init(harContentsOf:)``).
    ///
    /// - Throws: ``CassetteError`` naming the file when it cannot be read, is not a cassette,
    ///   or has a version this library does not know.
    public init(contentsOf url: URL) throws(CassetteError) {
        if Self.isHAR(url) {
            try self.init(harContentsOf: url)
            return
        }
        // Checked before opening it: reading a FIFO would block, a directory or a device is no cassette.
        switch FileKind.contentsOfRegularFile(at: url) {
        case .success(let data): try self.init(data: data, file: url.path)
        case .failure(let refusal): throw .unreadable(file: url.path, reason: refusal.reason)
        }
    }

    /// Whether `url` names a HAR archive (its name ends in `.har`, in any case), which is read
    /// and written as HAR rather than as a cassette.
    static func isHAR(_ url: URL) -> Bool {
        url.pathExtension.lowercased() == "har"
    }

    /// Parses cassette JSON; `file` names the source in errors.
    public init(data: Data, file: String) throws(CassetteError) {
        let decoder = JSONDecoder()
        // Strict RFC 3339, whole seconds as the file keeps them: JSONDecoder's ISO 8601 accepted
        // "00:00:0.40" and kept a fraction the next write dropped (found by the cassette fuzz target).
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Timestamps.rfc3339(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "\"\(text.prefix(40))\" is not an RFC 3339 date such as 2026-11-22T08:00:00Z")
            }
            return Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
        }
        let version: Int?
        do {
            version = try decoder.decode(VersionOnly.self, from: data).version
        } catch {
            throw .corrupt(file: file, reason: Self.explain(error))
        }
        guard let version else { throw .corrupt(file: file, reason: "it has no \"version\"") }
        guard version == Self.currentVersion else {
            throw .unsupportedVersion(file: file, found: version, supported: Self.currentVersion)
        }
        do {
            interactions = try decoder.decode(File.self, from: data).interactions
        } catch {
            throw .corrupt(file: file, reason: Self.explain(error))
        }
        try validate(file: file)
    }

    /// Checks every interaction holds what a real exchange can: a status in 100...599, a method
    /// that is an HTTP token, an absolute http(s) URL, and bodies that decode.
    ///
    /// - Throws: ``CassetteError/invalidInteraction(file:interaction:reason:)`` for the first
    ///   interaction that does not.
    package func validate(file: String) throws(CassetteError) {
        for (index, interaction) in interactions.enumerated() {
            if let problem = interaction.problem {
                throw .invalidInteraction(file: file, interaction: index + 1, reason: problem)
            }
        }
    }

    /// The JSON text of the cassette.
    package func encoded() throws(CassetteError) -> Data {
        do {
            return try encoded(userInfo: [:])
        } catch {
            throw .unwritable(file: "(encoding)", reason: "\(error)")
        }
    }

    func encoded(userInfo: [CodingUserInfoKey: any Sendable]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.userInfo = userInfo
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            guard let text = Timestamps.rfc3339String(date) else {
                throw EncodingError.invalidValue(
                    date, .init(codingPath: encoder.codingPath, debugDescription: "a recording date outside the years 1...9999"))
            }
            try container.encode(text)
        }
        return try encoder.encode(File(version: Self.currentVersion, interactions: interactions))
    }

    /// Writes the cassette atomically: to a temporary file beside `url`, then renamed over it,
    /// so a crash leaves either the old cassette or the new one, never half of one. A cassette
    /// that exists keeps its permissions (a 0600 cassette stays 0600); a symbolic link to a
    /// cassette stays a link, and its target is replaced. A directory, a FIFO, a device or a
    /// link to nothing at `url` is refused, and nothing is written. A file whose name ends in
    /// `.har` is written as a HAR 1.2 archive (see ``harData(redaction:)``).
    ///
    /// - Parameters:
    ///   - url: The cassette file.
    ///   - redaction: Whose registered secrets must not be written. If one is still in an
    ///     interaction, in any encoding, or a compressed body could hide one, nothing is written
    ///     and the error names the interaction and the place.
    public func write(to url: URL, refusing redaction: Redaction = .none) throws(CassetteError) {
        try refuseLeaks(of: redaction, file: url.path)
        let target = try Self.writableFile(url)
        let isHAR = Self.isHAR(url)
        do {
            try StreamedBodies.write(to: target) { bodies in
                isHAR ? try encodedHAR(streaming: bodies) : try encoded(userInfo: [StreamedBodies.key: bodies])
            }
        } catch {
            throw .unwritable(file: url.path, reason: SystemReason(error).description)
        }
    }

    /// The file writing a cassette to `url` replaces (the target of a link to one), or
    /// ``CassetteError/unwritable(file:reason:)`` saying what is at `url` instead.
    static func writableFile(_ url: URL) throws(CassetteError) -> URL {
        do {
            return try AtomicFile.replaceableFile(at: url, createsFolder: true)
        } catch {
            throw .unwritable(file: url.path, reason: error.description)
        }
    }

    /// Throws for the first place of the first interaction from number `first` (from 0) on that
    /// still holds a value `redaction` hides wherever it appears, or whose compressed body cannot
    /// be searched for one.
    package func refuseLeaks(of redaction: Redaction, file: String, from first: Int = 0) throws(CassetteError) {
        guard redaction.hidesValues else { return }
        for (index, interaction) in interactions.enumerated().dropFirst(first) {
            let number = index + 1
            let request = interaction.request
            let response = interaction.response
            var places: [(String, String)] = [("request URL", request.url)]
            places += request.headers.map { ("request header \($0.name)", $0.value) }
            places += response.headers.map { ("response header \($0.name)", $0.value) }
            for (place, text) in places where redaction.containsSecret(text.utf8) {
                throw .secretWouldBeWritten(file: file, interaction: number, place: place)
            }
            for (side, body, headers) in [("request", request.body, request.headers), ("response", response.body, response.headers)] {
                guard let body else { continue }
                if let encoding = body.compression(headers: headers) {
                    throw .secretWouldBeWritten(
                        file: file, interaction: number,
                        place: "\(side) body, which is \(encoding)-compressed and cannot be searched for secrets "
                            + "(record it uncompressed: send Accept-Encoding: identity)")
                }
                if redaction.containsSecret(body.data) {
                    throw .secretWouldBeWritten(file: file, interaction: number, place: "\(side) body")
                }
            }
        }
    }

    private static func explain(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context) where context.codingPath.count >= 2:
            // Inside an interaction: name it as the other interaction errors do.
            let number = (context.codingPath[1].intValue ?? 0) + 1
            return "interaction \(number): \(context.debugDescription) (at \(path(context)))"
        case DecodingError.dataCorrupted(let context):
            return "it is not valid JSON (\(context.debugDescription))"
        case DecodingError.keyNotFound(let key, let context):
            return "\"\(key.stringValue)\" is missing at \(path(context))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "unexpected value at \(path(context)): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        return path.isEmpty ? "the top level" : path
    }
}
