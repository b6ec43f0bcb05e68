import Foundation
import HTTPClient

/// A whole request read from a connection: its head and its body, de-chunked.
package struct ParsedRequest: Sendable, Hashable {
    /// The request line and header fields.
    package var head: HTTPRequestHead
    /// The body (after chunked decoding), or nil when the request announced none (neither
    /// `Content-Length` nor `Transfer-Encoding`); a `Content-Length: 0` body is empty, not nil.
    package var body: Data?

    /// A request with this head and body.
    /// - Parameters:
    ///   - head: the request line and header fields.
    ///   - body: the decoded body, nil when none was announced.
    package init(head: HTTPRequestHead, body: Data?) {
        self.head = head
        self.body = body
    }

    /// The request as the stub engine resolves it: the method, every header and the body, at
    /// the URL the client asked for.
    ///
    /// An origin-form target (`/path?q`) is joined to `base`'s scheme and to the host and port
    /// of the `Host` line (what the client addressed: `localhost:8080`, `192.168.1.20:8080`), or
    /// to `base`'s own when there is no `Host` line plain enough for a URL (see
    /// `RequestAuthority`); an absolute target (`http://host/path`, as sent to a proxy) is used
    /// as it is; `*` (OPTIONS) is the origin alone. Repeated header lines are joined with `, `
    /// (`Cookie` lines with `; `, RFC 6265 section 5.4), as `URLRequest` keeps one value per name.
    /// - Parameter base: the server's address (`http://127.0.0.1:PORT`).
    /// - Throws: ``HTTPRequestParseError`` (400) when the target does not make a URL.
    package func urlRequest(base: URL) throws(HTTPRequestParseError) -> URLRequest {
        let url: URL?
        switch head.target {
        case let target where target.hasPrefix("/") || target == "*":
            let origin: String
            if let authority = RequestAuthority(of: head) {
                origin = "\(base.scheme ?? "http")://\(authority)"
            } else {
                var components = URLComponents()
                components.scheme = base.scheme
                // An IPv6 host (`::1`) goes back in its brackets, or the URL has no host at all.
                components.host = base.host.map { $0.contains(":") && !$0.hasPrefix("[") ? "[\($0)]" : $0 }
                components.port = base.port
                origin = components.string ?? base.absoluteString
            }
            url = URL(string: target == "*" ? origin : origin + target)
        default: url = URL(string: head.target)
        }
        guard let url, url.host != nil else { throw .malformed("the target \(head.target) does not make a URL") }
        var request = URLRequest(url: url)
        // GET is URLRequest's own; the setter costs a locale-aware comparison on Linux.
        if head.method != "GET" { request.httpMethod = head.method }
        // Set at once: the parser has checked every name and value (setValue would check each
        // again and look its name up among the others, case-insensitively, through NSString).
        let fields = head.headers.joinedByName { $0 == "cookie" ? "; " : ", " }
        if !fields.isEmpty { request.allHTTPHeaderFields = fields }
        request.httpBody = body
        return request
    }

    /// The request as a client writes it: the request line, every header line as read, and the
    /// body framed as the head says (one chunk and the last chunk when chunked). Reading these
    /// bytes gives this request back; the fuzzer and the tests check that the parser is faithful with it.
    package func serialized() -> [UInt8] {
        var text = "\(head.method) \(head.target) \(head.version)\r\n"
        for field in head.headers { text += "\(field.name): \(field.value)\r\n" }
        var bytes = Array((text + "\r\n").utf8)
        guard let body else { return bytes }
        if head.values(of: "Transfer-Encoding").isEmpty {
            bytes += body
        } else {
            bytes += HTTPResponseWriter.chunk(body) + HTTPResponseWriter.lastChunk
        }
        return bytes
    }
}
