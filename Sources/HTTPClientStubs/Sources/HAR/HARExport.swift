import Foundation
import HTTPClient

extension Cassette {
    /// The cassette as a HAR 1.2 archive, which browsers' developer tools, Charles and Proxyman
    /// open: each interaction redacted by `redaction` first.
    ///
    /// ```swift
    /// try Cassette(contentsOf: cassetteURL).harData().write(to: harURL)
    /// ```
    ///
    /// Every field a cassette holds is written, so importing the archive again
    /// (``init(harData:file:)``) gives the same interactions: method, URL (and its query as
    /// `queryString`), headers in order, bodies (text, or base64 with `"encoding": "base64"`) with
    /// the `mimeType` of their `Content-Type`, status and `statusText`, `startedDateTime` and
    /// `time`, with `timings` split into the wait for the head and the time the body took when
    /// it came in chunks. The timing of each chunk is not in the format, and is left out.
    /// Writing to a file whose name ends in `.har` (``write(to:refusing:)``) writes the same.
    ///
    /// - Parameter redaction: What is hidden before anything is written; on by default.
    /// - Throws: ``CassetteError/secretWouldBeWritten(file:interaction:place:)`` when a secret
    ///   `redaction` registers could not be hidden (a compressed body), or
    ///   ``CassetteError/unwritable(file:reason:)`` when a date cannot be written.
    public func harData(redaction: Redaction = .standard) throws(CassetteError) -> Data {
        let redacted = Cassette(interactions: interactions.map { redaction.apply(to: $0) })
        try redacted.refuseLeaks(of: redaction, file: "(HAR export)")
        do {
            return try redacted.encodedHAR(streaming: nil)
        } catch {
            throw .unwritable(file: "(HAR export)", reason: "\(error)")
        }
    }

    /// The HAR JSON of the interactions as they are; with `bodies`, each body is a token that
    /// ``StreamedBodies`` streams in its place.
    func encodedHAR(streaming bodies: StreamedBodies?) throws -> Data {
        var entries: [HARArchive.Entry] = []
        entries.reserveCapacity(interactions.count)
        for interaction in interactions {
            entries.append(try interaction.harEntry(streaming: bodies))
        }
        return try HARArchive(entries: entries).encoded()
    }
}

extension HARArchive {
    /// An archive of `entries`, written by this package.
    init(entries: [Entry], comment: String? = nil) {
        self.init(
            log: Log(
                version: "1.2", creator: Creator(name: "HTTPClientStubs", version: "1"), entries: entries, comment: comment))
    }

    /// The archive's JSON, as every HAR this package writes is written.
    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

extension Cassette.Interaction {
    func harEntry(streaming bodies: StreamedBodies?) throws -> HARArchive.Entry {
        guard let started = Timestamps.rfc3339String(recordedAt) else {
            throw EncodingError.invalidValue(
                recordedAt, .init(codingPath: [], debugDescription: "a recording date outside the years 1...9999"))
        }
        // Microseconds are kept: a time read from a HAR comes back as it was written.
        func milliseconds(_ seconds: TimeInterval) -> Double {
            seconds.isFinite ? (max(0, seconds) * 1_000_000).rounded() / 1000 : 0
        }
        let receive = milliseconds(response.chunks?.last?.at ?? 0)
        let time = max(milliseconds(duration), receive)
        let requestBody = request.body.map { text(of: $0, streaming: bodies) }
        let responseBody = response.body.map { text(of: $0, streaming: bodies) }
        let requestType = request.headers.contentType
        return HARArchive.Entry(
            startedDateTime: started, time: time,
            request: HARArchive.Request(
                method: request.method, url: request.url, httpVersion: "HTTP/1.1", cookies: [],
                headers: request.headers.map { HARArchive.Field(name: $0.name, value: $0.value) },
                queryString: Self.queryString(of: request.url),
                postData: requestBody.map {
                    HARArchive.PostData(mimeType: requestType ?? "", text: $0.text, encoding: $0.encoding)
                },
                headersSize: -1, bodySize: request.body?.data.count ?? 0),
            response: HARArchive.Response(
                status: response.status, statusText: response.reasonPhrase ?? HTTPResponseWriter.reasonPhrase(for: response.status),
                httpVersion: "HTTP/1.1", cookies: [],
                headers: response.headers.map { HARArchive.Field(name: $0.name, value: $0.value) },
                content: HARArchive.Content(
                    size: response.body?.data.count ?? 0, mimeType: response.headers.contentType ?? "",
                    text: responseBody?.text, encoding: responseBody?.encoding),
                redirectURL: response.headers.value(of: "Location") ?? "", headersSize: -1,
                bodySize: response.body?.data.count ?? 0),
            cache: HARArchive.Cache(),
            timings: HARArchive.Timings(
                blocked: -1, dns: -1, connect: -1, send: 0, wait: time - receive, receive: receive, ssl: -1))
    }

    /// A body as HAR writes it: its text, or its base64 with the encoding that says so.
    private func text(of body: Cassette.Body, streaming bodies: StreamedBodies?) -> (text: String, encoding: String?) {
        let encoding = body.isText ? nil : "base64"
        if let bodies { return (bodies.token(for: body), encoding) }
        return (body.text ?? body.data.base64EncodedString(), encoding)
    }

    /// The URL's query parameters, decoded, in order (HAR lists them beside the URL).
    private static func queryString(of url: String) -> [HARArchive.Field] {
        (URLComponents(string: url)?.queryItems ?? []).map { HARArchive.Field(name: $0.name, value: $0.value ?? "") }
    }
}
