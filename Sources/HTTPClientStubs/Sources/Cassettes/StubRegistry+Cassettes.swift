import Foundation
import HTTPClient

extension StubRegistry {
    /// Serves a cassette's recorded responses through this registry: each distinct request
    /// becomes one stub (indexed by method and path), answering its recordings in order and
    /// then repeating the last. Verification and unmatched reports work as for any stub.
    ///
    /// - Parameters:
    ///   - cassette: The recordings to serve.
    ///   - matching: What a request must match besides method and URL.
    ///   - redaction: Applied to incoming URLs before comparing, so a request carrying a real
    ///     token matches the recording whose token was redacted.
    ///   - replaysTiming: Each response keeps its recorded wait as latency, and a streamed one the
    ///     pauses between its chunks (waited out where timing is simulated, and a timeout shorter
    ///     than the wait applies anywhere); otherwise responses come at once.
    public func replay(
        _ cassette: Cassette, matching: CassetteMatching = CassetteMatching(), redaction: Redaction = .standard, replaysTiming: Bool = false
    ) {
        replay(cassette, matching: matching, redaction: redaction, replaysTiming: replaysTiming, file: nil, firstInteraction: 0)
    }

    /// Serves `cassette`, whose first interaction is number `firstInteraction` of `file`: each
    /// answered request's ``RecordedRequest/answerSource`` names its interaction (httpc serve's log
    /// prints it).
    package func replay(
        _ cassette: Cassette, matching: CassetteMatching, redaction: Redaction, replaysTiming: Bool, file: URL?, firstInteraction: Int
    ) {
        // Both sides are redacted alike: a recording made with redaction off (a HAR export)
        // still matches, and so does a request carrying the real value of a redacted one.
        let (comparesOrigin, comparesQuery) = (matching.comparesOrigin, matching.comparesQuery)
        let url: @Sendable (String) -> (path: String, url: String)? = {
            Self.normalized(redaction.redacted(url: $0), keepingOrigin: comparesOrigin, keepingQuery: comparesQuery)
        }
        // Nothing is dropped silently: an interaction that cannot be served fails the test.
        for (index, interaction) in cassette.interactions.enumerated() {
            if let problem = interaction.problem ?? (url(interaction.request.url) == nil ? "its URL cannot be parsed" : nil) {
                reporting.report(
                    "Cannot replay interaction \(index + 1) of the cassette in \"\(name)\": \(problem).", location,
                    createdInSwiftTesting)
            }
        }
        for group in Self.grouped(cassette.interactions, matching: matching, url: url) {
            guard let first = group.first?.interaction, let key = url(first.request.url) else { continue }
            // A path with a hidden value (a secret in it) is routed by what comes before the value;
            // the URL condition, which redacts the request alike, decides.
            let route = key.path.range(of: Redaction.placeholder).map { StubTarget.prefix(String(key.path[..<$0.lowerBound])) }
            let stub = stub(HTTPMethod(rawValue: first.request.method), route ?? .exact(key.path))
                .matching(
                    .custom("URL \(key.url)") { request in
                        url(request.url.absoluteString)?.url == key.url
                    })
            if matching.body {
                stub.matching(.recordedBody(first.request, redaction: redaction))
            }
            for name in matching.headers {
                stub.matching(.recordedHeader(name, first.request.headers.value(of: name), redaction: redaction))
            }
            let responses = group.map { index, interaction in
                var response = interaction.mockResponse(replaysTiming: replaysTiming)
                response.source = .recording(interaction: firstInteraction + index, file: file)
                return response
            }
            stub.respond(responses).allowingUnused().named(
                "\(first.request.method) \(key.url)")
        }
    }

    /// Interactions that answer the same requests, in recorded order, with their place in `interactions`.
    private static func grouped(
        _ interactions: [Cassette.Interaction], matching: CassetteMatching, url: (String) -> (path: String, url: String)?
    ) -> [[(index: Int, interaction: Cassette.Interaction)]] {
        /// What makes two recorded requests the same request under `matching`.
        struct RequestKey: Hashable {
            let method: String
            let url: String
            /// Only when bodies are matched; `nil` for a request without one.
            let body: Data?
            /// The matched headers' values, in `matching.headers` order (`nil` when absent).
            let headers: [String?]
        }
        var order: [RequestKey] = []
        var groups: [RequestKey: [(index: Int, interaction: Cassette.Interaction)]] = [:]
        for (index, interaction) in interactions.enumerated() {
            guard let key = url(interaction.request.url) else { continue }
            let request = interaction.request
            let id = RequestKey(
                method: request.method.uppercased(), url: key.url,
                body: matching.body ? request.body?.data : nil,
                headers: matching.headers.map { name in request.headers.first { $0.name.caseInsensitiveEquals(name) }?.value })
            if groups[id] == nil { order.append(id) }
            groups[id, default: []].append((index, interaction))
        }
        return order.compactMap { groups[$0] }
    }

    /// Scheme, host, port (unless `keepingOrigin` is false) and path, with query items sorted
    /// (unless `keepingQuery` is false): the same URL whatever the order of its query.
    static func normalized(_ url: String, keepingOrigin: Bool = true, keepingQuery: Bool = true) -> (path: String, url: String)? {
        guard let components = URLComponents(string: url) else { return nil }
        let path = components.path.isEmpty ? "/" : components.path
        var normalized = ""
        if keepingOrigin {
            normalized = "\(components.scheme ?? "")://\(components.host ?? "")"
            if let port = components.port { normalized += ":\(port)" }
        }
        normalized += components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if keepingQuery, let query = components.percentEncodedQuery, !query.isEmpty {
            normalized += "?" + query.split(separator: "&").sorted().joined(separator: "&")
        }
        return (path, normalized)
    }
}

extension RequestMatcher {
    /// The recorded request's body, redacted, against the request's, redacted alike: a recorded
    /// `"password": "REDACTED"` matches the real password. JSON is compared as JSON (member
    /// order and spacing aside).
    fileprivate static func recordedBody(_ recorded: Cassette.Request, redaction: Redaction) -> RequestMatcher {
        let expected = redaction.redacted(body: recorded.body?.data ?? Data(), contentType: recorded.headers.contentType)
        let expectedJSON = try? JSONValue(parsing: expected)
        return RequestMatcher("body \(excerpt(expected)) (compared redacted)") { request in
            guard !request.isBodyHidden else {
                return "the body of this upload task never reached the cassette: URLSession keeps an upload's body from URLProtocols"
            }
            let actual = redaction.redacted(body: request.body, contentType: request.headers["Content-Type"])
            if actual == expected { return nil }
            if let expectedJSON, let json = try? JSONValue(parsing: actual), json == expectedJSON { return nil }
            return "body \(excerpt(actual)) != \(excerpt(expected)) (compared redacted)"
        }
    }

    /// Header `name` with the recorded value, both redacted; absent when the recording had none.
    fileprivate static func recordedHeader(_ name: String, _ recorded: String?, redaction: Redaction) -> RequestMatcher {
        let expected = recorded.map { redaction.redacted(header: name, value: $0) }
        return RequestMatcher("header \(name): \(expected ?? "(absent)") (compared redacted)") { request in
            let actual = request.headers[name].map { redaction.redacted(header: name, value: $0) }
            guard actual != expected else { return nil }
            return "header \(name) is \(actual ?? "absent"), not \(expected ?? "absent") (compared redacted)"
        }
    }
}

extension Cassette.Interaction {
    /// The recorded response as a stub response: streamed in its recorded chunks when it has
    /// them. With `replaysTiming`, it also comes as late as it was recorded: its headers after
    /// the recorded duration less the time its chunks took, so a request whose timeout is
    /// shorter than the recording's wait times out as it would have.
    func mockResponse(replaysTiming: Bool = false) -> MockResponse {
        var response = recordedResponse(replaysTiming: replaysTiming)
        if replaysTiming, duration.isFinite {
            // Clamped as pauses are: a recorded 1e20 s must not overflow a timer.
            response.latency = min(max(0, duration - (self.response.chunks?.last?.at ?? 0)), 1e9)
        }
        return response
    }

    private func recordedResponse(replaysTiming: Bool) -> MockResponse {
        var headers: HTTPHeaders = [:]
        for header in response.headers { headers.add(name: header.name, value: header.value) }
        let body = response.body?.data ?? Data()
        guard let chunks = response.chunks, !chunks.isEmpty else { return .status(response.status, headers: headers, body: body) }
        var parts: [StreamPart] = []
        var offset = body.startIndex
        var previous: TimeInterval = 0
        for (index, chunk) in chunks.enumerated() {
            if replaysTiming, chunk.at > previous { parts.append(.pause(chunk.at - previous)) }
            previous = chunk.at
            // The body may have changed length under redaction: cut where it can, the last
            // chunk takes the rest.
            let end = index == chunks.count - 1 ? body.endIndex : min(body.endIndex, offset + max(0, chunk.bytes))
            if end > offset { parts.append(.data(body[offset..<end])) }
            offset = end
        }
        return .streamed(status: response.status, headers: headers, parts)
    }
}
