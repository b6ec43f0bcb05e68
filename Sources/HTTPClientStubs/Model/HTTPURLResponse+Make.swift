import Foundation
import HTTPClient

extension HTTPURLResponse {
    /// An HTTP/1.1 response; repeated header fields are joined as HTTP allows.
    package static func make(url: URL, statusCode: Int, headers: HTTPHeaders) -> HTTPURLResponse? {
        var fields: [String: String] = [:]
        for field in headers where !fields.keys.contains(where: { $0.caseInsensitiveEquals(field.name) }) {
            fields[field.name] = headers[field.name]
        }
        return HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: fields)
    }
}

/// The `HTTPURLResponse` a stub's response last made, handed again to the next request for the
/// same URL: making one costs corelibs more than the rest of an in-process round trip (it
/// searches the headers for a file name, case-insensitively). A response never changes once
/// made, so requests may share it.
package struct MadeResponse: Sendable {
    private struct Made: Sendable {
        let url: URL
        let statusCode: Int
        let headers: HTTPHeaders
        let response: HTTPURLResponse
    }

    private let last = Locked<Made?>(nil)

    /// Nothing made yet.
    package init() {}

    /// The response for `url` with `statusCode` and `headers`: the last one made, when it was
    /// made from the same three, else a new one (kept for next time).
    package func response(url: URL, statusCode: Int, headers: HTTPHeaders) -> HTTPURLResponse? {
        if let made = last.current, made.statusCode == statusCode, made.url == url, made.headers == headers {
            return made.response
        }
        guard let response = HTTPURLResponse.make(url: url, statusCode: statusCode, headers: headers) else { return nil }
        last.withLock { $0 = Made(url: url, statusCode: statusCode, headers: headers, response: response) }
        return response
    }
}
