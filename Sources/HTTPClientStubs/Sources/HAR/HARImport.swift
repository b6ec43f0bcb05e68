import Foundation
import HTTPClient

extension Cassette {
    /// Imports a HAR 1.2 archive, so a session captured in a browser or a proxy can be replayed.
    ///
    /// HTTP/2 pseudo-headers (`:authority`...) are dropped, and so are `Content-Encoding` and
    /// `Content-Length`, because HAR stores bodies already decoded. A `statusText` other than the
    /// usual phrase of its status is kept, and written back by ``harData(redaction:)``. An entry
    /// with status 0 (a request that got no response) is left out.
    ///
    /// - Throws: ``CassetteError/invalidHAR(file:reason:)`` naming the file.
    public init(harContentsOf url: URL) throws(CassetteError) {
        // As a cassette: a FIFO, a device or a directory is refused before it is opened.
        switch FileKind.contentsOfRegularFile(at: url) {
        case .success(let data): try self.init(harData: data, file: url.path)
        case .failure(let refusal): throw .unreadable(file: url.path, reason: refusal.reason)
        }
    }

    /// Imports HAR 1.2 JSON; `file` names the source in errors.
    public init(harData data: Data, file: String) throws(CassetteError) {
        let har: HARArchive
        do {
            har = try JSONDecoder().decode(HARArchive.self, from: data)
        } catch {
            throw .invalidHAR(file: file, reason: "it has no log.entries with request and response (\(error))")
        }
        var interactions: [Interaction] = []
        for (index, entry) in har.log.entries.enumerated() {
            let status = entry.response.status
            // No response came (browsers write a blocked or failed request so, and a failed
            // test's traffic its misses): nothing to replay.
            if status == 0 { continue }
            guard (100...599).contains(status) else {
                throw .invalidHAR(file: file, reason: "entry \(index + 1) has status \(entry.response.status)")
            }
            let requestBody = try Self.body(
                entry.request.postData?.text, encoding: entry.request.postData?.encoding, entry: index, file: file)
            let responseBody = try Self.body(
                entry.response.content?.text, encoding: entry.response.content?.encoding, entry: index, file: file)
            let reasonPhrase = entry.response.statusText.flatMap { $0 == HTTPResponseWriter.reasonPhrase(for: status) ? nil : $0 }
            interactions.append(
                Interaction(
                    request: Request(
                        method: entry.request.method.uppercased(), url: entry.request.url,
                        headers: Self.headers(entry.request.headers), body: requestBody),
                    response: Response(
                        status: status, reasonPhrase: reasonPhrase, headers: Self.headers(entry.response.headers), body: responseBody),
                    duration: (entry.time ?? 0) / 1000,
                    recordedAt: entry.startedDateTime.flatMap(Timestamps.rfc3339) ?? Date(timeIntervalSince1970: 0)))
        }
        self.init(interactions: interactions)
        try validate(file: file)
    }

    private static func headers(_ headers: [HARArchive.Field]?) -> [Header] {
        (headers ?? []).filter { header in
            !header.name.hasPrefix(":") && !["content-encoding", "content-length"].contains(header.name.lowercased())
        }.map { Header(name: $0.name, value: $0.value) }
    }

    private static func body(_ text: String?, encoding: String?, entry: Int, file: String) throws(CassetteError) -> Body? {
        guard let text, !text.isEmpty else { return nil }
        guard encoding == "base64" else { return Body(Data(text.utf8)) }
        guard let data = Data(base64Encoded: text) else {
            throw .invalidHAR(file: file, reason: "entry \(entry + 1) has a body marked base64 that is not base64")
        }
        return Body(data)
    }
}
