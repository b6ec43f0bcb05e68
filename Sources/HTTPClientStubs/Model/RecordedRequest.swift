import Foundation
import HTTPClient

/// A request as the stub engine saw it: what matchers test and what verification returns.
///
/// The body is read once, from `httpBody` or, when Foundation moved it there, from
/// `httpBodyStream`, so matchers and assertions always see it.
public struct RecordedRequest: Sendable, CustomStringConvertible {
    /// What every copy of one request shares: the request as captured, and what is parsed from
    /// it on first use. A recorded request is copied into the log, into each stub's calls and
    /// into its answer: with one reference to share, a copy costs a retain, not a dozen.
    final class Capture: Sendable {
        let urlRequest: URLRequest
        let method: HTTPMethod
        let url: URL
        let urlString: String
        let path: String
        let body: Data
        let bodyStreamError: BodyStreamError?
        let isBodyHidden: Bool
        let hasQuery: Bool
        let retainedBytes: Int
        /// Where the scheme and the authority lie in `urlString`, found while the path was
        /// split: the scheme and host conditions read them per candidate stub.
        let parts: URLParts
        /// What is made from the request on first use, for every condition and reader that
        /// asks: most requests are matched by method and path alone, and never need their
        /// headers gathered or their query parsed.
        let parsed = Locked(Parsed())

        struct Parsed: Sendable {
            var headers: HeaderTable?
            var queryItems: [URLQueryItem]?
            var queryKey: String?
            var queryPairKeys: [String]?
            /// `.some(nil)`: parsed, and not JSON.
            var json: JSONValue??
            /// Whether a JSON condition has walked the body once (see `jsonContains`).
            var jsonWalked = false
            /// The hex SHA-256 of the body, part of fixture file names.
            var bodyDigest: String?
        }

        /// The header fields, and each header's lower-cased name with its value at the same
        /// index (repeated fields joined as ``HTTPHeaders`` joins them): a header condition
        /// compares names with `==`, not case-insensitively field by field, per candidate stub.
        /// Arrays, not a dictionary: a request has a few headers, and hashing the name cost
        /// more than comparing it with each.
        struct HeaderTable: Sendable {
            let fields: HTTPHeaders
            let names: [String]
            let values: [String]

            init(_ fields: HTTPHeaders) {
                // Sized once: growing two arrays field by field cost about 700 instructions a
                // request with two headers.
                var names: [String] = []
                var values: [String] = []
                names.reserveCapacity(fields.count)
                values.reserveCapacity(fields.count)
                for field in fields {
                    let name = field.name.asciiLowercased
                    if let index = names.firstIndex(of: name) {
                        values[index] += ", " + field.value
                    } else {
                        names.append(name)
                        values.append(field.value)
                    }
                }
                self.fields = fields
                self.names = names
                self.values = values
            }
        }

        init(_ request: URLRequest, bodyIsHidden: Bool, headBytes: Int) {
            // The stream is read now, whoever asks for the body: it can be read only once.
            let (request, streamError) = RecordedRequest.readingBodyStream(request)
            bodyStreamError = streamError
            isBodyHidden = bodyIsHidden
            let url = request.url ?? URL(fileURLWithPath: "/")
            urlRequest = request
            method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
            self.url = url
            let urlString = url.absoluteString
            self.urlString = urlString
            let split = RecordedRequest.splitting(url, urlString)
            path = split.path
            hasQuery = split.hasQuery
            parts = split.parts
            body = request.httpBody ?? Data()
            retainedBytes = body.count + headBytes
        }

        /// `read` with the header table, gathered from the request the first time it is asked
        /// for (inside the lock: only Foundation runs there). No key path: a header condition
        /// asks once per candidate stub, and building one per call cost more than the lookup.
        func withHeaders<Result>(_ read: (HeaderTable) -> Result) -> Result {
            parsed.withLock { parsed in
                if let table = parsed.headers { return read(table) }
                let table = HeaderTable(HTTPHeaders(urlRequest.allHTTPHeaderFields ?? [:]))
                parsed.headers = table
                return read(table)
            }
        }

        /// The cached value at `keyPath`, computed by `parse` (outside the lock) the first time.
        func parsed<Value: Sendable>(_ keyPath: WritableKeyPath<Parsed, Value?>, _ parse: () -> Value) -> Value {
            if let value = parsed.withLock({ $0[keyPath: keyPath] }) { return value }
            let value = parse()
            parsed.withLock { $0[keyPath: keyPath] = value }
            return value
        }
    }

    let capture: Capture

    /// The request with its body in `httpBody` (a stream body is drained into it).
    public var urlRequest: URLRequest { capture.urlRequest }
    /// The method.
    public var method: HTTPMethod { capture.method }
    /// The URL (`about:blank` for a request that had none).
    public var url: URL { capture.url }
    /// The percent-decoded path; `/` when the URL has none.
    public var path: String { capture.path }
    /// The query items in order (names and values percent-decoded, empty pairs skipped), split
    /// as the registry splits a stub's query. A name or value whose decoded bytes are not UTF-8
    /// is given as written (`%FF`); query conditions compare the decoded bytes, not this text.
    /// Parsed once, when first asked: most requests are matched without looking at their query.
    public var queryItems: [URLQueryItem] {
        capture.parsed(\.queryItems) { Self.queryItems(in: capture.urlString) }
    }
    /// The URL as text, kept from capture: the scheme, host and query are read from it by
    /// hand when a condition asks, never through `URL`'s accessors (which bridge on Linux).
    var urlString: String { capture.urlString }

    /// The lowercase hex SHA-256 of the body, hashed once however many fixture folders (and
    /// reports of a miss) ask for it.
    var bodyDigest: String { capture.parsed(\.bodyDigest) { SHA256.hex(capture.body) } }
    /// The header fields as sent.
    public var headers: HTTPHeaders { capture.withHeaders(\.fields) }

    /// The value of the header named `lowercasedName` (repeated fields joined by `, `).
    func headerValue(lowercasedName: String) -> String? {
        // Lengths first: a name of another length is rejected without a string comparison.
        let length = lowercasedName.utf8.count
        return capture.withHeaders { table in
            for index in table.names.indices where table.names[index].utf8.count == length && table.names[index] == lowercasedName {
                return table.values[index]
            }
            return nil
        }
    }
    /// The body; empty when the request has none.
    public var body: Data { capture.body }
    /// Values captured by a path template such as `/users/{id}` of the stub that answered.
    public internal(set) var pathParameters: [String: String] = [:]
    /// Where the answer came from (a stub's responses, a file, a recorded interaction, the
    /// network), in the registry's log (``StubRegistry/requests``) and in a stub's
    /// ``Stub/calls`` alike; `nil` for a request nothing answered (it matched no stub, or its
    /// body could not be read).
    public internal(set) var answerSource: AnswerSource?
    /// Arrival order in the registry that recorded it (0 for the first request), counted on
    /// across `removeAllRecords()` and `reset()`: a stub's older calls keep their numbers.
    package internal(set) var sequenceNumber = 0

    /// Why the body stream could not be read whole, when it could not: the request must fail
    /// with this error rather than be answered as if its body were what was read.
    package var bodyStreamError: BodyStreamError? { capture.bodyStreamError }

    /// Whether the body was sent but never shown to the stubs: an upload task's body through
    /// the URLProtocol transport stays inside `URLSession`. Body conditions then fail and say
    /// so, rather than match an empty ``body``.
    package var isBodyHidden: Bool { capture.isBodyHidden }

    /// Captures `request`. A request without a URL is recorded as `about:blank`.
    public init(_ request: URLRequest) {
        self.init(request, bodyIsHidden: false)
    }

    /// Captures `request`, whose body the transport could not see when `bodyIsHidden`, and
    /// whose head a server read in `headBytes` (0 in process: the app's own request).
    init(_ request: URLRequest, bodyIsHidden: Bool, headBytes: Int = 0) {
        capture = Capture(request, bodyIsHidden: bodyIsHidden, headBytes: headBytes)
    }

    /// What keeping this request costs, as the logs' byte limit counts it: its body, and the
    /// head a server read for it.
    var retainedBytes: Int { capture.retainedBytes }

    /// The percent-decoded path (`/` when there is none), whether a query follows it, and where
    /// the scheme and host are. Hierarchical URLs (`scheme://...`), nearly all of them, are
    /// split by hand: `URLComponents` would parse the whole URL, the larger part of a mocked round trip.
    private static func splitting(_ url: URL, _ string: String) -> (path: String, hasQuery: Bool, parts: URLParts) {
        var string = string
        let parts = string.withUTF8(URLParts.init)
        // Scanned as contiguous UTF-8 bytes (String.Index arithmetic cost more than the rest of
        // the capture). The delimiters are ASCII, so byte offsets split the text cleanly.
        let split = string.withUTF8 { bytes -> (raw: String, hasQuery: Bool)? in
            var index = 0
            var afterScheme: Int?
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: ":") {
                    if index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/") {
                        afterScheme = index + 3
                    }
                    break
                }
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
                index += 1
            }
            guard var start = afterScheme else { return nil }
            func isEnd(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") }
            while start < bytes.count, bytes[start] != UInt8(ascii: "/"), !isEnd(bytes[start]) { start += 1 }
            var end = start
            while end < bytes.count, !isEnd(bytes[end]) { end += 1 }
            let hasQuery = end < bytes.count && bytes[end] == UInt8(ascii: "?")
            guard end > start else { return ("/", hasQuery) }
            return (String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self), hasQuery)
        }
        guard let split else {
            let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.path ?? url.path
            return (path.isEmpty ? "/" : path, string.utf8.contains(UInt8(ascii: "?")), parts)
        }
        guard split.raw.utf8.contains(UInt8(ascii: "%")) else { return (split.raw, split.hasQuery, parts) }
        return (split.raw.removingPercentEncoding ?? split.raw, split.hasQuery, parts)
    }

    // MARK: Parts of the URL, read from its text

    /// The scheme (`https`), or empty for a URL without one.
    var scheme: URLPart { URLPart(text: urlString, bytes: capture.parts.scheme) }

    /// Host and port as written (`api.example.com:8443`), without user information.
    var authority: URLPart { URLPart(text: urlString, bytes: capture.parts.authority) }

    /// The host name alone (`api.example.com`, `[::1]` for an IPv6 literal).
    var hostName: URLPart { URLPart(text: urlString, bytes: capture.parts.host) }

    /// Whether the URL has a query at all (seen while its path was split).
    var hasQuery: Bool { capture.hasQuery }

    /// `request` with a body stream read into `httpBody`, once: a stream cannot be read twice,
    /// so every later reader (matchers, computed responses, the request log) gets these bytes.
    /// A read error is returned, never hidden behind a shorter body.
    package static func readingBodyStream(_ request: URLRequest) -> (URLRequest, BodyStreamError?) {
        guard request.httpBody == nil, let stream = request.httpBodyStream else { return (request, nil) }
        var request = request
        var data = Data()
        var failure: BodyStreamError?
        stream.open()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count == 0 { break }
            if count < 0 {
                let reason = stream.streamError.map { "\($0.localizedDescription)" } ?? "the stream reported an error"
                failure = BodyStreamError(
                    request: "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "about:blank")",
                    bytesRead: data.count, reason: reason)
                break
            }
            data.append(buffer, count: count)
        }
        stream.close()
        request.httpBodyStream = nil
        request.httpBody = data
        return (request, failure)
    }

    // MARK: Reading the body

    /// The body as UTF-8 text, or `nil` if it is not valid UTF-8.
    public var text: String? { String(data: body, encoding: .utf8) }

    /// The body parsed as JSON, or `nil` if it is not JSON. Parsed once per request, however
    /// many conditions and copies ask.
    public var json: JSONValue? {
        // Asked once per candidate stub with a JSON condition: no key path here (building one
        // per call cost as much as the lookup).
        guard !body.isEmpty else { return nil }  // no body, so no JSON
        let parsed = capture.parsed
        if let cached = parsed.withLock({ $0.json }) { return cached }
        let value = try? JSONValue(parsing: body)
        parsed.withLock { $0.json = .some(value) }
        return value
    }

    /// Whether the body is JSON that contains `expected` (``JSONValue/contains(_:)``). The
    /// first condition to ask walks the bytes, building only what `expected` names (most
    /// requests meet one JSON condition, and a large body is read at the checking parser's
    /// speed); from the second on, the body is parsed into a tree once and every condition
    /// looks into it.
    func jsonContains(_ expected: JSONValue) -> Bool {
        guard !body.isEmpty else { return false }  // no body: not JSON
        let parsed = capture.parsed
        let (tree, walked) = parsed.withLock { parsed in
            defer { parsed.jsonWalked = true }
            return (parsed.json, parsed.jsonWalked)
        }
        if let tree { return tree?.contains(expected) == true }
        guard walked else { return JSONParser<JSONValueBuilder>.body(body, contains: expected) }
        return json?.contains(expected) == true
    }

    /// Decodes the body as JSON into `type`.
    public func decodeBody<Value: Decodable>(as type: Value.Type, using decoder: JSONDecoder = JSONDecoder()) throws -> Value {
        try decoder.decode(Value.self, from: body)
    }

    /// The body parsed as `application/x-www-form-urlencoded` fields (`+` is a space). For a
    /// repeated field the last value wins; use ``formItems`` to see every value.
    public var formFields: [String: String] {
        Dictionary(formItems.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
    }

    /// The form fields in order, repeated names kept.
    public var formItems: [URLQueryItem] {
        guard let text else { return [] }
        return URLQueryItem.formFields(in: text)
    }

    /// `GET https://example.com/users/1`.
    public var description: String { "\(method) \(url.absoluteString)" }
}
