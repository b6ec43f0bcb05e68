import Dispatch
import Foundation
import HTTPClient

/// A ``StubServer``'s upstream at work: sends what the server lets through on the process's
/// ``UpstreamSession``, records each exchange with a ``CassetteWriter`` when the settings name a
/// file, and serves that file's exchanges through the server's registry as a replayed cassette.
///
/// Nothing here runs on an event loop or waits there: the session calls back on its queue, a
/// recording is written on a queue of its own, and the answer is handed to the connection's
/// loop when it is ready, as a held response's is.
final class ServerUpstream: Sendable {
    /// What forwarding can end in, for the connection to write.
    enum Forwarded: Sendable {
        /// The upstream's answer: its status, header lines, body, and what the log says answered.
        case answer(status: Int, fields: [HTTPHeaders.Field], body: Data, answeredBy: String)
        /// No answer to pass on: the status to answer, and why (the body and the log line).
        case failure(status: Int, reason: String)
    }

    let settings: StubServer.Upstream
    /// Whether a request no stub answers goes upstream: not in a mode that only replays.
    let passesUnmatchedThrough: Bool
    private let root: UpstreamRoot
    private let registry: StubRegistry
    /// Where exchanges are recorded; nil when nothing is.
    private let writer: CassetteWriter?
    /// Whether recorded exchanges answer (the file's, and those recorded since).
    private let replays: Bool
    /// What the file held, served once the server's address is known.
    private let loaded: Cassette
    /// Exchanges are written here, off the session's queue and the loops.
    private let writes = DispatchQueue(label: "StubServer recording")
    /// Exchanges waiting for the next write, each with what to do once it is written.
    private let queued = Locked<[(raw: Cassette.Interaction, completion: @Sendable (Result<CassetteWriter.Saved, NotRecorded>) -> Void)]>([]
    )
    /// The name this server gives itself in the `Via` line of what it forwards: a request that
    /// comes back with it has gone round a loop (the upstream is this server, or leads back to it).
    private let viaName = "stubserver-" + UUID().uuidString.prefix(8).lowercased()
    /// The server's address once it listens, and whether it has stopped (nothing more is written).
    private let state = Locked<(servedAt: URL?, stopped: Bool)>((nil, false))

    /// Reads the file the settings record to, as their mode says, and checks it can be written.
    ///
    /// - Throws: ``CassetteError`` naming the file: missing in mode `none`, corrupt, or not writable.
    init(_ settings: StubServer.Upstream, registry: StubRegistry) throws(CassetteError) {
        self.settings = settings
        self.registry = registry
        root = UpstreamRoot(settings.url)
        guard let file = settings.recordingFile else {
            (writer, replays, loaded, passesUnmatchedThrough) = (nil, false, Cassette(), true)
            return
        }
        let (records, replays) = try settings.mode.plan(for: file)
        let loaded = replays && FileManager.default.fileExists(atPath: file.path) ? try Cassette(contentsOf: file) : Cassette()
        // A file that cannot be written fails here, not at the first exchange recorded.
        if records { _ = try Cassette.writableFile(file) }
        writer = records ? CassetteWriter(file: file, cassette: loaded, redaction: settings.redaction) : nil
        self.replays = replays
        self.loaded = loaded
        passesUnmatchedThrough = records
    }

    /// Serves the file's exchanges at `base`, the server's address, now that it is known.
    func start(servedAt base: URL) {
        state.withLock { $0.servedAt = base }
        if replays { serve(loaded, from: 0) }
    }

    /// Waits for an exchange being written, and writes no more: the file is complete when the
    /// server has stopped.
    func stop() {
        writes.sync { state.withLock { $0.stopped = true } }
    }

    /// Sends `request` (as the registry resolved it, from `head`) upstream, and hands what comes
    /// of it to `completion`, once, on another thread; cancelling `cancellation` cancels the transfer.
    func forward(
        _ request: URLRequest, head: HTTPRequestHead, cancellation: ExchangeCancellation,
        completion: @escaping @Sendable (Forwarded) -> Void
    ) {
        let url = root.url(of: Self.target(of: request, head: head))
        guard let upstreamURL = URL(string: url) else {
            return completion(.failure(status: 502, reason: "The upstream URL \(redacted(url)) is not a URL."))
        }
        // A request that already went through this server has gone round a loop: it is answered
        // 508 at once, with this server in the answer's Via, so the server that sent it (this one,
        // or one on the way) knows the answer for a loop's and does not record it.
        if head.listElements(of: "Via").contains(where: { $0.split(separator: " ").dropFirst().first.map(String.init) == viaName }) {
            return completion(
                .answer(
                    status: 508,
                    fields: [.init(name: "Content-Type", value: "text/plain; charset=utf-8"), .init(name: "Via", value: "1.1 \(viaName)")],
                    body: Data(loopReason.utf8), answeredBy: "not forwarded: the request came back round a loop"))
        }
        let fields = Self.forwardedFields(of: head)
        // RFC 9110 section 7.6.3: each intermediary adds itself to Via. Only on the wire: the
        // recorded request keeps the client's lines.
        let received = head.headers.filter { $0.name.caseInsensitiveEquals("Via") }.map(\.value)
        let sentFields =
            fields.filter { !$0.name.caseInsensitiveEquals("Via") }
            + [HTTPHeaders.Field(name: "Via", value: (received + ["1.1 \(viaName)"]).joined(separator: ", "))]
        var sent = URLRequest(url: upstreamURL, timeoutInterval: settings.timeout)
        sent.httpMethod = head.method
        sent.allHTTPHeaderFields = Self.joined(sentFields)
        sent.httpBody = request.httpBody
        let started = Date()
        UpstreamSession.shared.send(sent, limit: settings.maximumBodyBytes, cancellation: cancellation) { [self] result in
            let response: HTTPURLResponse
            let body: Data
            switch result {
            case .failure(let error):
                return completion(.failure(status: 502, reason: error.description))
            case .success(let answer):
                (response, body) = answer
            }
            if (response.value(forHTTPHeaderField: "Via")?.lowercased()).map({ $0.contains(viaName) }) == true {
                return completion(.failure(status: 508, reason: loopReason))
            }
            let received = Self.answerFields(of: response)
            let answerFields = received.map(servedField)
            guard let writer else {
                return completion(
                    .answer(
                        status: response.statusCode, fields: answerFields, body: body, answeredBy: "forwarded to \(redacted(root.prefix))"))
            }
            let raw = Cassette.Interaction(
                request: Cassette.Request(
                    method: head.method, url: url, headers: fields.map { Cassette.Header(name: $0.name, value: $0.value) },
                    body: request.httpBody.flatMap { $0.isEmpty ? nil : Cassette.Body($0) }),
                response: Cassette.Response(
                    status: response.statusCode, headers: received.map { Cassette.Header(name: $0.name, value: $0.value) },
                    body: body.isEmpty ? nil : Cassette.Body(body)),
                duration: Date().timeIntervalSince(started), recordedAt: started)
            record(raw, with: writer) { [self] result in
                let saved: CassetteWriter.Saved
                switch result {
                case .success(let value):
                    saved = value
                case .failure(.stopped):
                    return completion(.failure(status: 503, reason: "The server stopped before the exchange was recorded."))
                case .failure(.refused(let error)):
                    return completion(
                        .failure(status: 500, reason: "The upstream answered, but the exchange was not recorded: \(error.description)"))
                }
                if replays { serve(Cassette(interactions: [saved.interaction]), from: saved.index) }
                let source = AnswerSource.recording(interaction: saved.index, file: writer.file)
                completion(
                    .answer(
                        status: response.statusCode, fields: answerFields, body: body,
                        answeredBy: "recorded from \(redacted(root.prefix)) as \(source)"))
            }
        }
    }

    /// Why an exchange was not recorded.
    private enum NotRecorded: Error {
        /// The server stopped first.
        case stopped
        /// The writer refused it, or could not write the file.
        case refused(CassetteError)
    }

    /// Queues `raw` to be written, and hands what came of it to `completion` on the writing
    /// queue. Exchanges that queue up while the file is being written are written together
    /// next, in one write: each write rewrites the whole file, and one per exchange made every
    /// answer of a long, busy recording wait behind all the writes queued before it.
    private func record(
        _ raw: Cassette.Interaction, with writer: CassetteWriter,
        completion: @escaping @Sendable (Result<CassetteWriter.Saved, NotRecorded>) -> Void
    ) {
        let first = queued.withLock { queued in
            queued.append((raw, completion))
            return queued.count == 1
        }
        guard first else { return }
        writes.async { [self] in
            let batch = queued.withLock { queued in
                defer { queued = [] }
                return queued
            }
            guard !state.withLock({ $0.stopped }) else {
                for (_, completion) in batch { completion(.failure(.stopped)) }
                return
            }
            let results = writer.save(batch.map(\.raw))
            for ((_, completion), result) in zip(batch, results) { completion(result.mapError { .refused($0) }) }
        }
    }

    /// Serves `cassette`, whose first interaction is number `first` of the file, at the server's address.
    private func serve(_ cassette: Cassette, from first: Int) {
        guard let base = state.withLock({ $0.servedAt }) else { return }
        // Whatever address a client uses for the server, its request's URL has that host.
        var matching = CassetteMatching()
        matching.comparesOrigin = false
        registry.replay(
            cassette.served(at: base, recordedThrough: settings.url), matching: matching, redaction: settings.redaction,
            replaysTiming: false, file: settings.recordingFile, firstInteraction: first)
    }

    /// A `Location` or `Content-Location` under the upstream, pointed at the server instead: a
    /// client that follows it comes back here.
    private func servedField(_ field: HTTPHeaders.Field) -> HTTPHeaders.Field {
        guard field.name.caseInsensitiveEquals("Location") || field.name.caseInsensitiveEquals("Content-Location"),
            let base = state.withLock({ $0.servedAt }), let rest = root.remainder(of: field.value)
        else { return field }
        var origin = base.absoluteString
        while origin.hasSuffix("/") { origin.removeLast() }
        return HTTPHeaders.Field(name: field.name, value: origin + rest)
    }

    /// Why a request that came back round a loop gets no upstream answer.
    private var loopReason: String {
        "The request came back to the server that forwarded it: the upstream \(redacted(root.prefix)) leads back to this "
            + "server, so nothing was forwarded again or recorded."
    }

    private func redacted(_ url: String) -> String {
        settings.redaction.redacted(url: url)
    }

    // MARK: Headers

    /// The headers that concern one connection only (RFC 9110 section 7.6.1), never forwarded.
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade",
    ]

    /// The path and query of the request, as the client sent them.
    private static func target(of request: URLRequest, head: HTTPRequestHead) -> String {
        if head.target.hasPrefix("/") { return head.target }
        // An absolute target (as sent to a proxy): its path and query.
        guard let url = request.url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "/" }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// The client's header lines, in order, less those of its connection and those the session
    /// sets itself: `Host` (the upstream's), `Content-Length` (of the body sent), `Expect` (the
    /// server answered it) and `Accept-Encoding` (the session decodes what it asks for).
    static func forwardedFields(of head: HTTPRequestHead) -> [HTTPHeaders.Field] {
        let dropped = hopByHop.union(head.listElements(of: "Connection")).union(["host", "content-length", "expect", "accept-encoding"])
        return head.headers.filter { !dropped.contains($0.name.lowercased()) }
    }

    /// The upstream's header lines less those of its connection, and, as the session decoded the
    /// body, its `Content-Encoding` (and the `Content-Length` of the encoded bytes, kept otherwise
    /// for the answer to a HEAD).
    static func answerFields(of response: HTTPURLResponse) -> [HTTPHeaders.Field] {
        let fields = Array(HTTPClient.Response<Data>(response, body: nil).headers)
        var dropped = hopByHop.union(["content-encoding"])
        for field in fields where field.name.caseInsensitiveEquals("Connection") {
            for name in field.value.split(separator: ",") { dropped.insert(name.trimmingCharacters(in: .whitespaces).lowercased()) }
        }
        if fields.contains(where: { $0.name.caseInsensitiveEquals("Content-Encoding") }) { dropped.insert("content-length") }
        return fields.filter { !dropped.contains($0.name.lowercased()) }
    }

    /// One value per name, as `URLRequest` keeps them: repeated lines joined with `, ` (`Cookie`
    /// lines with `; `, RFC 6265 section 5.4).
    private static func joined(_ fields: [HTTPHeaders.Field]) -> [String: String] {
        var joined: [String: String] = [:]
        var names: [String: String] = [:]
        for field in fields {
            let key = field.name.lowercased()
            if let name = names[key], let value = joined[name] {
                joined[name] = value + (key == "cookie" ? "; " : ", ") + field.value
            } else {
                names[key] = field.name
                joined[field.name] = field.value
            }
        }
        return joined
    }
}
