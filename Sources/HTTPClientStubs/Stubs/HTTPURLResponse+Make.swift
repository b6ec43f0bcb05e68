import Foundation
import HTTPClient

extension HTTPURLResponse {
    /// An HTTP/1.1 response; repeated header fields are joined as HTTP allows.
    package static func make(url: URL, statusCode: Int, headers: HTTPHeaders) -> HTTPURLResponse? {
        var fields: [String: String] = [:]
        if !headers.isEmpty {
            for name in headers.names { fields[name] = headers[name] }
        }
        return HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: fields)
    }
}
