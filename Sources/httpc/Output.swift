import Foundation
import HTTPClient
import HTTPClientStubs

/// How httpc prints responses and failures.
enum Output {
    /// The status line, the headers when asked, a blank line, and the body (JSON pretty printed).
    /// Without `body`, what comes before it (the body goes to a file or streams after).
    static func render(_ response: HTTPClient.Response, includeHeaders: Bool, body includesBody: Bool = true) -> String {
        var lines = ["HTTP/1.1 \(response.statusCode) \(reason(response.statusCode))"]
        if includeHeaders { lines += response.headers.map { "\($0.name): \($0.value)" } }
        lines.append("")
        if includesBody { lines.append(body(response)) }
        return lines.joined(separator: "\n")
    }

    static func body(_ response: HTTPClient.Response) -> String {
        if let object = try? JSONSerialization.jsonObject(with: response.body, options: [.fragmentsAllowed]),
            let pretty = try? JSONSerialization.data(
                withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
        {
            return String(decoding: pretty, as: UTF8.self)
        }
        return response.text ?? "<\(response.body.count) bytes of binary data>"
    }

    /// Why no response came, on one line (or, for a request nothing answers, followed by the
    /// reasons each candidate gave: the fixture file names tried). URLs are redacted.
    static func explain(_ error: HTTPClientError) -> String {
        switch error.underlyingError {
        case let unmatched as UnmatchedRequestError:
            let request = unmatched.report.request
            let redaction = Redaction.standard.hiding(
                Redaction.standard.hiddenValues(
                    url: request.url.absoluteString, headers: request.headers, body: request.body,
                    contentType: request.headers["Content-Type"]))
            return "nothing answers \(request.method) \(redaction.redacted(url: request.url.absoluteString)): "
                + redaction.redacted(text: unmatched.report.candidates.flatMap(\.reasons).joined(separator: "\n"))
        case let error as FixtureError:
            return error.description
        case let error as CassetteError:
            return error.description
        default:
            return error.description.split(separator: "\n").joined(separator: ": ")
        }
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
