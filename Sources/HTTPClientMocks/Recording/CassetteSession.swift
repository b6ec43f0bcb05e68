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
    /// Which recorded exchanges answer a request: method and URL always (query order ignored,
    /// redacted values compared redacted); optionally the body and chosen headers.
    public struct Matching: Sendable {
        public var body: Bool
        public var headers: [String]

        public init(body: Bool = false, headers: [String] = []) {
            self.body = body
            self.headers = headers
        }

        /// Method and URL: the default.
        public static let methodAndURL = Matching()
    }

    public let file: URL
    public let mode: RecordMode
    /// The engine that replays: verify and inspect it as any registry.
    public let stubs: StubRegistry
    let upstream: any URLSessionProtocol
    let matching: Matching
    let redaction: Redaction
    private let recorded: Locked<Cassette>
    /// Whether recorded exchanges are saved: false in replay-only use.
    private let records: Bool
    /// Whether known exchanges are replayed: false when re-recording everything.
    private let replays: Bool

    /// Opens (or prepares to record) the cassette at `file`.
    ///
    /// - Parameters:
    ///   - mode: When to record; by default `HTTPCLIENT_RECORD_MODE`, else `.none`.
    ///   - upstream: The real session requests go to when recording.
    ///   - matching: What a recorded exchange must match besides method and URL.
    ///   - redaction: What is hidden before anything is written; on by default.
    ///   - reporting: Where unmatched requests are reported.
    /// - Throws: ``CassetteError`` for a missing (in mode `none`), corrupt or unknown-version
    ///   cassette, naming the file.
    public init(
        file: URL,
        mode: RecordMode? = nil,
        upstream: any URLSessionProtocol = URLSession.shared,
        matching: Matching = .methodAndURL,
        redaction: Redaction = .standard,
        reporting: FailureReporting = .automatic,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) throws {
        let mode = try mode ?? RecordMode.fromEnvironment()
        let exists = FileManager.default.fileExists(atPath: file.path)
        self.file = file
        self.mode = mode
        self.upstream = upstream
        self.matching = matching
        self.redaction = redaction
        stubs = StubRegistry("cassette \(file.lastPathComponent)", reporting: reporting,
                             fileID: fileID, filePath: filePath, line: line, column: column)
        switch mode {
        case .none:
            guard exists else {
                throw CassetteError.unreadable(file: file.path, underlying: CocoaError(.fileNoSuchFile, userInfo: [
                    NSLocalizedDescriptionKey: "no cassette here; record it once with \(RecordMode.environmentVariable)=once",
                ]))
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
        for group in Self.grouped(cassette.interactions, matching: matching, redaction: redaction) {
            register(group)
        }
    }

    /// The interactions recorded or loaded so far.
    public var cassette: Cassette { recorded.current }

    // MARK: URLSessionProtocol

    public func makeDataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any URLSessionDataTaskProtocol {
        if replays {
            switch stubs.resolve(request, reportingMisses: !records) {
            case .respond(let response, _, _):
                return MockURLSessionDataTask.answering(request, with: response.completionArguments(for: request), completion: completionHandler)
            case .unmatched(let error) where !records:
                return MockURLSessionDataTask.answering(request, with: (nil, nil, error), completion: completionHandler)
            case .unmatched, .passthrough:
                break
            }
        }
        return record(request, completionHandler: completionHandler)
    }

    private func record(
        _ request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any URLSessionDataTaskProtocol {
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

    /// Redacts, appends, writes atomically (refusing registered secrets) and, when replaying,
    /// makes the new exchange answerable at once.
    private func save(_ raw: Cassette.Interaction) throws {
        let interaction = redaction.apply(to: raw)
        try recorded.withLock { cassette in
            var updated = cassette
            updated.interactions.append(interaction)
            try updated.write(to: file, refusing: redaction.secrets)
            cassette = updated
        }
        if replays { register([interaction]) }
    }

    // MARK: Replaying through the engine

    private func register(_ group: [Cassette.Interaction]) {
        guard let first = group.first, let key = Self.normalized(first.request.url) else { return }
        let stub = stubs.stub(HTTPMethod(rawValue: first.request.method), path: .exact(key.path))
            .matching(.custom("URL \(key.url)") { [redaction] request in
                Self.normalized(redaction.redactedURL(request.url.absoluteString))?.url == key.url
            })
        if matching.body {
            stub.matching(.body(first.request.body?.data ?? Data()))
        }
        for name in matching.headers {
            let value = first.request.headers.first { $0.name.caseInsensitiveEquals(name) }?.value
            stub.matching(value.map { .header(name, $0) } ?? !.header(name))
        }
        stub.respond(with: group.map(\.mockResponse)).allowingUnused().named("\(first.request.method) \(key.url)")
    }

    /// Interactions that answer the same requests, in recorded order: replayed as a sequence.
    private static func grouped(_ interactions: [Cassette.Interaction], matching: Matching, redaction: Redaction) -> [[Cassette.Interaction]] {
        var order: [String] = []
        var groups: [String: [Cassette.Interaction]] = [:]
        for interaction in interactions {
            guard let key = normalized(interaction.request.url) else { continue }
            var id = "\(interaction.request.method.uppercased()) \(key.url)"
            if matching.body { id += " \(interaction.request.body.map { "\($0)" } ?? "")" }
            for name in matching.headers {
                id += " \(interaction.request.headers.first { $0.name.caseInsensitiveEquals(name) }?.value ?? "-")"
            }
            if groups[id] == nil { order.append(id) }
            groups[id, default: []].append(interaction)
        }
        return order.compactMap { groups[$0] }
    }

    /// Scheme, host, port and path, with query items sorted: the same URL whatever the order
    /// of its query.
    static func normalized(_ url: String) -> (path: String, url: String)? {
        guard let components = URLComponents(string: url) else { return nil }
        let path = components.path.isEmpty ? "/" : components.path
        var normalized = "\(components.scheme ?? "")://\(components.host ?? "")"
        if let port = components.port { normalized += ":\(port)" }
        normalized += components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery, !query.isEmpty {
            normalized += "?" + query.split(separator: "&").sorted().joined(separator: "&")
        }
        return (path, normalized)
    }

    private static func interaction(_ request: RecordedRequest, _ response: HTTPURLResponse, _ body: Data, duration: TimeInterval) -> Cassette.Interaction {
        Cassette.Interaction(
            request: Cassette.Request(
                method: request.method.rawValue, url: request.url.absoluteString,
                headers: request.headers.map { Cassette.Header(name: $0.name, value: $0.value) },
                body: request.body.isEmpty ? nil : Cassette.Body(request.body)),
            response: Cassette.Response(
                status: response.statusCode,
                headers: HTTPClient.Response(response, body: nil).headers.map { Cassette.Header(name: $0.name, value: $0.value) },
                body: body.isEmpty ? nil : Cassette.Body(body)),
            duration: duration)
    }
}

extension Cassette.Interaction {
    /// The recorded response as a stub response.
    var mockResponse: MockResponse {
        var headers = HTTPHeaders()
        for header in response.headers { headers.add(name: header.name, value: header.value) }
        return .status(response.status, headers: headers, body: response.body?.data ?? Data())
    }
}
