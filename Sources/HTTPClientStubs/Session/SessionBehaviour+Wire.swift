import Foundation
import HTTPClient

extension MockResponse {
    /// This response as a `URLSession` receives it from a server that sends it (as
    /// ``StubServer`` writes it): a fault is the error the session reports for it (a stall, an
    /// answer that never comes, which the request's timeout ends); a body framed as given is
    /// cut to its `Content-Length` or de-chunked, failing where the bytes end too soon or the
    /// chunks are malformed; any other body is framed as a server frames it
    /// (``framedAsAServerSendsIt(status:headers:body:method:)``).
    /// - Parameter request: The request answered: its method, and its URL as the errors' failing URL.
    func asReceivedBySession(for request: RecordedRequest) -> MockResponse {
        let url = request.url
        var received = self
        switch outcome {
        case .failure(let fault as StubFault):
            received.outcome = .failure(fault.sessionError(for: url))
            if fault == .stall { received.latency = .infinity }
        case .http(let status, let headers, let body) where wire.framedAsGiven:
            let parts = streamParts.isEmpty ? [StreamPart.data(body)] : streamParts
            let joined = parts.reduce(into: Data()) { joined, part in part.data.map { joined.append($0) } }
            let (data, failure) = Self.unframed(joined, headers: headers, status: status, url: url)
            received.outcome = .http(statusCode: status, headers: headers, body: data)
            received.streamParts = failure.map { [.data(data), .failure($0)] } ?? (streamParts.isEmpty ? [] : [.data(data)])
            // The head is all a HEAD gets, whatever the framing says.
            if request.method == .head { received.withoutBody() }
        case .http(let status, let headers, let body):
            received.framedAsAServerSendsIt(status: status, headers: headers, body: body, method: request.method)
        default:
            break
        }
        guard received.streamParts.contains(where: { $0.failure is StubFault }) else { return received }
        received.streamParts = received.streamParts.flatMap { part -> [StreamPart] in
            guard let fault = part.failure as? StubFault else { return [part] }
            // Silent for good: the session's idle timeout ends it.
            if fault == .stall { return [.pause(.infinity), .failure(fault.sessionError(for: url))] }
            return [.failure(fault.sessionError(for: url))]
        }
        return received
    }

    /// Frames the body as a server does (``HTTPResponseWriter``) where the stub left the framing
    /// to it: a body that comes whole carries its `Content-Length` (what `expectedContentLength`
    /// and progress read), one that comes in timed parts none (a server sends it chunked). A
    /// 1xx, 204 or 304 has no body (RFC 9110 sections 15.2, 15.3.5 and 15.4.5), and a HEAD gets
    /// the head alone, with the length the GET's body has (section 9.3.2).
    ///
    /// A stub's own `Content-Length` or `Transfer-Encoding` is kept as it is: a test that sets
    /// one (a streamed body with a known length, for progress) gets it, where a server would
    /// write its own (``framedAsGiven()`` sends the stub's there too).
    private mutating func framedAsAServerSendsIt(status: Int, headers: HTTPHeaders, body: Data, method: HTTPMethod) {
        let hasOwnFraming = headers.contains {
            $0.name.caseInsensitiveEquals("Content-Length") || $0.name.caseInsensitiveEquals("Transfer-Encoding")
        }
        if HTTPResponseWriter.isBodiless(status) {
            withoutBody()
            return
        }
        if method == .head {
            if !hasOwnFraming {
                // A body cut short by a failure counts as none, as the server counts it.
                let sent = streamParts.contains { $0.failure != nil } ? 0 : body.count
                var headers = headers
                headers["Content-Length"] = String(sent)
                outcome = .http(statusCode: status, headers: headers, body: body)
            }
            withoutBody()
            return
        }
        guard !hasOwnFraming, Self.comesWhole(deliveredParts(body: body)) else { return }
        var headers = headers
        headers["Content-Length"] = String(body.count)
        outcome = .http(statusCode: status, headers: headers, body: body)
    }

    /// No body: no parts, nothing to throttle.
    private mutating func withoutBody() {
        if case .http(let status, let headers, _) = outcome { outcome = .http(statusCode: status, headers: headers, body: Data()) }
        streamParts = []
        throughput = nil
    }

    /// Whether `parts` (a body as the transports deliver it) reaches a client in one piece,
    /// with nothing to wait for after the head: the body a server frames by its length (see
    /// ``Answer/isStreamed``, what the server asks of the answer made from the same parts).
    private static func comesWhole(_ parts: [StreamPart]) -> Bool {
        var pieces = 0
        for part in parts {
            switch part {
            case .data(let data) where !data.isEmpty:
                pieces += 1
                if pieces > 1 { return false }
            case .data: continue
            case .pause(let seconds) where seconds > 0: return false
            case .pause: continue
            case .failure: return false
            }
        }
        return true
    }

    /// The body a session reads from `bytes` sent as given under `headers`: de-chunked when
    /// chunked, cut to the `Content-Length` when longer; with the error when the bytes end
    /// before the framing says, or a chunk is malformed.
    private static func unframed(_ bytes: Data, headers: HTTPHeaders, status: Int, url: URL?) -> (Data, (any Error)?) {
        if HTTPResponseWriter.isBodiless(status) { return (Data(), nil) }
        if let coding = headers["Transfer-Encoding"], coding.lowercased().contains("chunked") {
            return dechunked(bytes, url: url)
        }
        guard let declared = headers["Content-Length"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), declared >= 0 else {
            // Read to the close: every byte.
            return (bytes, nil)
        }
        if bytes.count >= declared { return (bytes.prefix(declared), nil) }
        return (bytes, StubFault.truncatedBodyError(for: url))
    }

    /// The chunks of `bytes` joined, up to the last chunk (trailers are not kept).
    private static func dechunked(_ bytes: Data, url: URL?) -> (Data, (any Error)?) {
        let bytes = [UInt8](bytes)
        var body = Data()
        var position = 0
        while true {
            guard let lineEnd = bytes[position...].firstIndex(of: UInt8(ascii: "\n")) else {
                return (body, StubFault.truncatedBodyError(for: url))
            }
            var sizeLine = bytes[position..<lineEnd]
            if sizeLine.last == UInt8(ascii: "\r") { sizeLine = sizeLine.dropLast() }
            let digits = sizeLine.prefix { $0 != UInt8(ascii: ";") }
            guard !digits.isEmpty, digits.count <= 15, let size = Int(String(decoding: digits, as: UTF8.self), radix: 16) else {
                return (body, StubFault.malformedChunk.sessionError(for: url))
            }
            if size == 0 { return (body, nil) }
            let start = lineEnd + 1
            guard bytes.count - start >= size + 2 else {
                body.append(contentsOf: bytes[start..<min(bytes.count, start + size)])
                return (body, StubFault.truncatedBodyError(for: url))
            }
            body.append(contentsOf: bytes[start..<start + size])
            position = start + size + 2
        }
    }
}

extension StubFault {
    /// What a `URLSession` reports when the connection closes before the body its framing
    /// announced is whole (measured on Linux: libcurl's "transfer closed with bytes remaining").
    static func truncatedBodyError(for url: URL?) -> URLError {
        #if canImport(FoundationNetworking)
        let code = URLError.Code.unknown
        #else
        let code = URLError.Code.networkConnectionLost
        #endif
        return URLError(
            code,
            userInfo: [
                NSURLErrorFailingURLErrorKey: url as Any,
                NSLocalizedDescriptionKey: "The stubbed connection closed before the body its framing announced was whole.",
            ])
    }
}
