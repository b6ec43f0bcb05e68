import Foundation
import HTTPClient
import HTTPClientStubs

/// How httpc prints responses and failures.
enum Output {
    /// The status line, the headers when asked, a blank line, and the body (JSON pretty printed).
    /// Without `body`, what comes before it (the body goes to a file or streams after).
    static func render(_ response: HTTPClient.Response<Data>, includeHeaders: Bool, body includesBody: Bool = true) -> String {
        var lines = ["HTTP/1.1 \(response.statusCode) \(reason(response.statusCode))"]
        if includeHeaders { lines += response.headers.map { "\($0.name): \($0.value)" } }
        lines.append("")
        if includesBody { lines.append(body(response)) }
        return lines.joined(separator: "\n")
    }

    static func body(_ response: HTTPClient.Response<Data>) -> String {
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
            return oneLine(error.description)
        }
    }

    /// Why a response that started did not complete, on one line: what arrived (the status when
    /// it is known, the bytes of the body), then why it stopped.
    static func incomplete(from url: URL, status: Int?, received: TransferProgress, error: HTTPClientError) -> String {
        "the response from \(Redaction.standard.redacted(url: url.absoluteString)) started but did not complete "
            + "(\(arrived(status: status, received: received))): \(cause(error))"
    }

    /// What an interrupted request had received, on one line.
    static func interrupted(from url: URL, status: Int?, received: TransferProgress?) -> String {
        guard let received else {
            return "interrupted before a response from \(Redaction.standard.redacted(url: url.absoluteString)) arrived"
        }
        return "interrupted: the response from \(Redaction.standard.redacted(url: url.absoluteString)) had started "
            + "(\(arrived(status: status, received: received)))"
    }

    /// `HTTP 200, 100 of 200 bytes of the body received` (no status when it is not known).
    private static func arrived(status: Int?, received: TransferProgress) -> String {
        (status.map { "HTTP \($0), " } ?? "") + "\(received) of the body received"
    }

    /// What went wrong, without the library's "before a response arrived", which is not so here.
    private static func cause(_ error: HTTPClientError) -> String {
        switch error {
        case .transport(let urlError): oneLine(HTTPClientError.reason(urlError))
        case .session(let underlying): oneLine("\(underlying)")
        default: oneLine(error.description)
        }
    }

    /// A message of several lines on one: each line but the last loses its full stop, then they
    /// are joined with ": ".
    private static func oneLine(_ text: String) -> String {
        let lines = text.split(separator: "\n")
        return lines.enumerated().map { $0.offset < lines.count - 1 && $0.element.hasSuffix(".") ? $0.element.dropLast() : $0.element }
            .joined(separator: ": ")
    }

    /// What every message hides: what ``Redaction/standard`` hides, and wherever they appear
    /// the values it hides in the request (a token in its query or headers, a password in its
    /// body), so that an error quoting them hides them too.
    static func redaction(url: URL, headers: HTTPHeaders, body: Data?) -> Redaction {
        Redaction.standard.hiding(
            Redaction.standard.hiddenValues(url: url.absoluteString, headers: headers, body: body, contentType: headers["Content-Type"]))
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
