import Foundation

/// A HAR 1.2 archive (the format browsers' developer tools, Charles and Proxyman read and
/// write), with the fields a cassette reads and writes. Reading is lenient: what a replay does
/// not need may be missing; writing fills in every field the format requires.
struct HARArchive: Codable {
    var log: Log

    struct Log: Codable {
        var version: String?
        var creator: Creator?
        var entries: [Entry]
        /// What a reader should know about the archive as a whole (HAR's own `comment`).
        var comment: String?
    }

    struct Creator: Codable {
        var name: String
        var version: String
    }

    struct Entry: Codable {
        /// When the request started (ISO 8601).
        var startedDateTime: String?
        /// Milliseconds the exchange took.
        var time: Double?
        var request: Request
        var response: Response
        var cache: Cache?
        var timings: Timings?
        /// What a reader should know about the exchange (HAR's own `comment`).
        var comment: String?
    }

    /// Nothing is known about a cache: the format requires the object, empty is allowed.
    struct Cache: Codable {}

    /// Milliseconds of each phase of the exchange; -1 for a phase that is not known.
    struct Timings: Codable {
        var blocked: Double?
        var dns: Double?
        var connect: Double?
        var send: Double?
        var wait: Double?
        var receive: Double?
        var ssl: Double?
    }

    /// A header or a query parameter.
    struct Field: Codable {
        var name: String
        var value: String
    }

    /// A cookie: only written as an empty list (the `Cookie` and `Set-Cookie` headers hold them),
    /// and read leniently.
    struct Cookie: Codable {
        var name: String?
        var value: String?
    }

    struct Request: Codable {
        var method: String
        var url: String
        var httpVersion: String?
        var cookies: [Cookie]?
        var headers: [Field]?
        var queryString: [Field]?
        var postData: PostData?
        var headersSize: Int?
        var bodySize: Int?
    }

    /// A request body: text, or base64 with `encoding` (the field the content of a response has,
    /// which tools also write here).
    struct PostData: Codable {
        var mimeType: String?
        var text: String?
        var encoding: String?
    }

    struct Response: Codable {
        var status: Int
        var statusText: String?
        var httpVersion: String?
        var cookies: [Cookie]?
        var headers: [Field]?
        var content: Content?
        var redirectURL: String?
        var headersSize: Int?
        var bodySize: Int?
    }

    /// A response body: text, or base64 with `encoding: "base64"`.
    struct Content: Codable {
        var size: Int?
        var mimeType: String?
        var text: String?
        var encoding: String?
    }
}
