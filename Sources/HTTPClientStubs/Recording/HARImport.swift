import Foundation
import HTTPClient

// HAR 1.2 (what browsers' developer tools and proxy apps export): only the fields a replay needs.
private struct HAR: Decodable {
    struct Log: Decodable {
        var version: String?
        var entries: [Entry]
    }

    struct Entry: Decodable {
        var startedDateTime: String?
        var time: Double?
        var request: Request
        var response: Response
    }

    struct Header: Decodable {
        var name: String
        var value: String
    }

    struct Request: Decodable {
        var method: String
        var url: String
        var headers: [Header]?
        var postData: PostData?
    }

    struct PostData: Decodable {
        var mimeType: String?
        var text: String?
        var encoding: String?
    }

    struct Response: Decodable {
        var status: Int
        var headers: [Header]?
        var content: Content?
    }

    struct Content: Decodable {
        var text: String?
        var encoding: String?
    }

    var log: Log
}

extension Cassette {
    /// Imports a HAR 1.2 archive, so a session captured in a browser or a proxy can be replayed.
    ///
    /// HTTP/2 pseudo-headers (`:authority`...) are dropped, and so are `Content-Encoding` and
    /// `Content-Length`, because HAR stores bodies already decoded.
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
        let har: HAR
        do {
            har = try JSONDecoder().decode(HAR.self, from: data)
        } catch {
            throw .invalidHAR(file: file, reason: "it has no log.entries with request and response (\(error))")
        }
        var interactions: [Interaction] = []
        for (index, entry) in har.log.entries.enumerated() {
            let status = entry.response.status
            guard (100...599).contains(status) else {
                throw .invalidHAR(file: file, reason: "entry \(index + 1) has status \(entry.response.status)")
            }
            let requestBody = try Self.body(
                entry.request.postData?.text, encoding: entry.request.postData?.encoding, entry: index, file: file)
            let responseBody = try Self.body(
                entry.response.content?.text, encoding: entry.response.content?.encoding, entry: index, file: file)
            interactions.append(
                Interaction(
                    request: Request(
                        method: entry.request.method.uppercased(), url: entry.request.url,
                        headers: Self.headers(entry.request.headers), body: requestBody),
                    response: Response(status: status, headers: Self.headers(entry.response.headers), body: responseBody),
                    duration: (entry.time ?? 0) / 1000,
                    recordedAt: entry.startedDateTime.flatMap(Timestamps.rfc3339) ?? Date(timeIntervalSince1970: 0)))
        }
        self.init(interactions: interactions)
        try validate(file: file)
    }

    private static func headers(_ headers: [HAR.Header]?) -> [Header] {
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
