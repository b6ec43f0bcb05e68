import Foundation
import HTTPClient
import HTTPClientMocks

/// How httpc prints responses and failures.
enum Output {
    /// The status line, the headers when asked, a blank line, and the body (JSON pretty printed).
    static func render(_ response: HTTPClient.Response, includeHeaders: Bool) -> String {
        var lines = ["HTTP/1.1 \(response.statusCode) \(reason(response.statusCode))"]
        if includeHeaders { lines += response.headers.map { "\($0.name): \($0.value)" } }
        lines.append("")
        lines.append(body(response))
        return lines.joined(separator: "\n")
    }

    static func body(_ response: HTTPClient.Response) -> String {
        if let object = try? JSONSerialization.jsonObject(with: response.body, options: [.fragmentsAllowed]),
            let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
        {
            return String(decoding: pretty, as: UTF8.self)
        }
        return response.text ?? "<\(response.body.count) bytes of binary data>"
    }

    /// A one-line reason; for a request no fixture or stub answers, followed by the file names
    /// that were tried.
    static func explain(_ error: HTTPClientError) -> String {
        let underlying = error.urlError?.userInfo[NSUnderlyingErrorKey]
        if let unmatched = underlying as? UnmatchedRequestError {
            let request = unmatched.report.request
            return "nothing answers \(request.method) \(request.url.absoluteString): "
                + unmatched.report.candidates.flatMap(\.reasons).joined(separator: "\n")
        }
        if let underlying = underlying as? NSError, let description = underlying.userInfo[NSLocalizedDescriptionKey] as? String {
            return "\(error.description.split(separator: "\n").first ?? "") \(description)"
        }
        return error.description.replacingOccurrences(of: "\n", with: " ")
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 409: "Conflict"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: ""
        }
    }
}
