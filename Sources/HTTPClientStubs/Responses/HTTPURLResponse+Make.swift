import Foundation
import HTTPClient

extension HTTPURLResponse {
    /// An HTTP/1.1 response; repeated header fields are joined as HTTP allows.
    package static func make(url: URL, statusCode: Int, headers: HTTPHeaders) -> HTTPURLResponse? {
        var fields: [String: String] = [:]
        for field in headers where !fields.keys.contains(where: { $0.caseInsensitiveCompare(field.name) == .orderedSame }) {
            fields[field.name] = headers[field.name]
        }
        return HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: fields)
    }
}
