import Foundation

/// Everything that can go wrong with a request, each case carrying what is needed to debug it.
///
/// ```swift
/// do {
///     let user: User = try await client.send(.get(url)).value
/// } catch .unacceptableStatus(let response) {
///     print(response.statusCode, response.text ?? "")  // the server's error body is kept
/// } catch {
///     print(error)                                      // says what happened and where
/// }
/// ```
public enum HTTPClientError: Error, CustomStringConvertible, LocalizedError, CustomReflectable {
    /// The URL could not be built; `reason` says why.
    case invalidURL(String, reason: String)
    /// A header of the request cannot be sent: its name is not a token, or its value holds a
    /// line break, a NUL or another control character but a tab. `reason` says which and where;
    /// it never quotes the value, which may be a credential, and ``description`` shows a name
    /// that is not a token only up to its first wrong byte (a whole header line given as a name
    /// may hold one too). Nothing was sent.
    case invalidHeader(name: String, reason: String)
    /// The request's method is not a token (a space or a line break in it would split the
    /// request line); `reason` says what it holds and where, and ``description`` shows the
    /// method up to that byte. Nothing was sent.
    case invalidMethod(String, reason: String)
    /// The request body could not be encoded.
    case encodingFailed(type: String, underlying: any Error)
    /// The request did not produce a response: timeout, no connection, DNS, TLS... The
    /// `URLError` keeps Foundation's code and, where known, the failing URL.
    case transport(URLError)
    /// The request was cancelled (its task or its Swift `Task`).
    case cancelled
    /// The session answered with something that is not an HTTP response.
    case nonHTTPResponse(url: URL?)
    /// The response failed validation (by default: a status outside 2xx). The whole response,
    /// body included, is kept.
    case unacceptableStatus(HTTPClient.Response<Data>)
    /// The ``HTTPClient/Validation`` threw `underlying` (the app's own error, for one) for this
    /// response, rejecting it. The whole response, body included, is kept.
    case validationFailed(response: HTTPClient.Response<Data>, underlying: any Error)
    /// The response body could not be decoded as `type`.
    case decodingFailed(type: String, response: HTTPClient.Response<Data>, underlying: any Error)
    /// An ``Interceptor`` threw; the error is what it threw.
    case interceptorFailed(any Error)
    /// The session failed with an error of its own, not a URL loading error, kept as it was
    /// thrown: in tests, the stub engine's `UnmatchedRequestError`, `FixtureError`,
    /// `CassetteError` or `BodyStreamError`, so a test can match it:
    /// `if case .session(let error as UnmatchedRequestError) = error { ... }`.
    case session(any Error)
    /// A download's destination or an upload's source cannot be used (a directory, a FIFO, a
    /// missing folder, a file that changed size while it was sent...): the error names the path
    /// and says what is there.
    case file(TransferFileError)

    /// The response, for the cases that have one.
    public var response: HTTPClient.Response<Data>? {
        switch self {
        case .unacceptableStatus(let response), .validationFailed(let response, _), .decodingFailed(_, let response, _): response
        default: nil
        }
    }

    /// The transport error, for ``transport(_:)``: what the retry policy looks at.
    var urlError: URLError? {
        if case .transport(let error) = self { return error }
        return nil
    }

    /// The error behind this one, of whatever type, for the cases that have one: what an
    /// encoder, decoder, interceptor or session threw, or the transport's `URLError`.
    public var underlyingError: (any Error)? {
        switch self {
        case .encodingFailed(_, let error), .decodingFailed(_, _, let error), .interceptorFailed(let error), .session(let error):
            error
        case .validationFailed(_, let error):
            error
        case .transport(let error):
            error
        case .file(let error):
            error
        case .invalidURL, .invalidHeader, .invalidMethod, .cancelled, .nonHTTPResponse, .unacceptableStatus:
            nil
        }
    }

    /// Whether this is ``cancelled``: a Bool for `#expect` and `where` clauses, where a
    /// pattern cannot go.
    public var isCancelled: Bool {
        if case .cancelled = self { return true }
        return false
    }

    /// What happened, with credentials hidden as ``Redaction/standard`` hides them (URLs, and
    /// the excerpt of the body), so it can be logged or shown as it is.
    public var description: String {
        let redaction = Redaction.standard
        switch self {
        case .invalidURL(let url, let reason):
            return "Invalid URL \"\(redaction.redacted(url: url))\": \(reason)."
        case .invalidHeader(let name, let reason):
            return "The header \(Self.quotedUpToItsFirstWrongByte(name)) cannot be sent: \(reason). Nothing was sent."
        case .invalidMethod(let method, let reason):
            return "The method \(Self.quotedUpToItsFirstWrongByte(method)) cannot be sent: \(reason). Nothing was sent."
        case .encodingFailed(let type, let underlying):
            return "Could not encode the \(type) request body as JSON: \(underlying)."
        case .transport(let error):
            let url = error.failingURL.map { " for \(redaction.redacted(url: $0.absoluteString))" } ?? ""
            return "The request\(url) failed before a response arrived: " + Self.reason(error)
        case .cancelled:
            return "The request was cancelled."
        case .nonHTTPResponse(let url):
            return "The response\(url.map { " from \(redaction.redacted(url: $0.absoluteString))" } ?? "") is not an HTTP response."
        case .unacceptableStatus(let response):
            return "HTTP \(response.statusCode) from \(response.redactedURL(redaction))"
                + response.bodyExcerpt(prefix: ": ", response.hidingItsCredentials(redaction))
        case .validationFailed(let response, let underlying):
            let reason = "\(underlying)"
            return "HTTP \(response.statusCode) from \(response.redactedURL(redaction)) failed validation: \(reason)"
                + response.bodyExcerpt(prefix: Self.bodyAfter(reason), response.hidingItsCredentials(redaction))
        case .interceptorFailed(let underlying):
            return "An interceptor failed: \(underlying)"
        case .session(let underlying):
            return "The session failed before a response arrived: \(underlying)"
        case .file(let error):
            return error.description
        case .decodingFailed(let type, let response, let underlying):
            let reason = Self.explain(underlying)
            return "Could not decode \(type) from the HTTP \(response.statusCode) response of "
                + "\(response.redactedURL(redaction)): \(reason)"
                + response.bodyExcerpt(prefix: Self.bodyAfter(reason), response.hidingItsCredentials(redaction))
        }
    }

    /// `token` quoted, or, when it is not a token, its beginning up to the first byte a token
    /// cannot hold: what follows may be anything, a credential included.
    private static func quotedUpToItsFirstWrongByte(_ token: String) -> String {
        let valid = String(decoding: token.utf8.prefix(while: \.isHTTPTokenByte), as: UTF8.self)
        return valid.utf8.count == token.utf8.count ? String(reflecting: token) : "\(String(reflecting: valid))…"
    }

    /// What introduces the body after `reason`: one full stop, whether or not the reason ends
    /// with its own.
    private static func bodyAfter(_ reason: String) -> String {
        reason.hasSuffix(".") ? " Body: " : ". Body: "
    }

    public var errorDescription: String? { description }

    /// What `dump`, `Mirror(reflecting:)` and test failure messages show: the ``description``
    /// (credentials hidden) and the ``response``, whose own mirror hides them, rather than the
    /// associated values as they are (a URL or an underlying error may hold a token).
    public var customMirror: Mirror {
        Mirror(self, children: ["description": description, "response": response as Any], displayStyle: .enum)
    }

    /// Turns whatever a session reported into the typed error.
    ///
    /// `NSError`s in `NSURLErrorDomain` do not bridge to `URLError` on Linux, so they are
    /// rebuilt here; any other error becomes ``session(_:)``, kept as it is. A
    /// `CancellationError` becomes ``cancelled``; a ``TransferFileError``, thrown or under a
    /// `URLError` (a session's upload reports a file it cannot send that way), becomes
    /// ``file(_:)``. The request URL is attached to a `URLError` that lacks one.
    init(transportError error: any Error, url: URL?) {
        if error is CancellationError {
            self = .cancelled
            return
        }
        if let fileError = error as? TransferFileError ?? (error as NSError).userInfo[NSUnderlyingErrorKey] as? TransferFileError {
            self = .file(fileError)
            return
        }
        var urlError: URLError
        if let given = error as? URLError {
            urlError = given
        } else {
            let nsError = error as NSError
            if nsError.domain == NSURLErrorDomain {
                // Failable on Linux, not on Darwin: the annotation makes both compile cleanly.
                let code: URLError.Code? = URLError.Code(rawValue: nsError.code)
                urlError = URLError(code ?? .unknown, userInfo: nsError.userInfo)
            } else {
                // The error itself, not its NSError bridge: on Linux the bridge does not cast
                // back to the Swift type, and callers want `as? TheirError` to work.
                self = .session(error)
                return
            }
        }
        if urlError.code == .cancelled {
            self = .cancelled
            return
        }
        if urlError.failingURL == nil, let url {
            var userInfo = urlError.userInfo
            userInfo[NSURLErrorFailingURLErrorKey] = url
            urlError = URLError(urlError.code, userInfo: userInfo)
        }
        self = .transport(urlError)
    }

    /// What a transport error says, without saying when it happened: the code, named, then on
    /// a line of its own what the session said beyond the code (a message of its own, as ours
    /// name the file or the stub, else an underlying error's). `httpc` says it after what arrived
    /// of a response cut short.
    /// `package`: httpc says it after what arrived of a response cut short.
    package static func reason(_ error: URLError) -> String {
        let detail =
            error.userInfo[NSLocalizedDescriptionKey] as? String
            ?? (error.userInfo[NSUnderlyingErrorKey] as? any Error)?.localizedDescription
        return "\(error.code.name) (URLError \(error.code.rawValue))." + (detail.map { "\n" + $0 } ?? "")
    }

    private static func explain(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "the top level" : keys.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "key \"\(key.stringValue)\" not found at \(path(context))"
        case .typeMismatch(let type, let context):
            return "expected \(type) at \(path(context)): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "expected \(type) but found null at \(path(context))"
        case .dataCorrupted(let context):
            return "invalid JSON at \(path(context)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

extension HTTPClient.Response {
    /// Up to 500 bytes of the body, redacted, for error messages ("" when it is empty).
    func bodyExcerpt(prefix: String, _ redaction: Redaction) -> String {
        guard !body.isEmpty else { return "" }
        // Redacting a wider window than is shown hides a value that straddles the cut.
        let redacted = redaction.redacted(body: body.prefix(2000), contentType: headers["Content-Type"])
        guard let excerpt = TextExcerpt(redacted, limit: 500) else {
            return "\(prefix)<\(body.count) bytes of binary data>"
        }
        return prefix + excerpt.text + (excerpt.isTruncated || body.count > 2000 ? "… (\(body.count) bytes)" : "")
    }

    /// `redaction`, also hiding wherever they appear the credentials of the request sent (its
    /// `Authorization` and other hidden headers, its URL's user info and hidden query values, its
    /// body's hidden fields) and of the response URL's user info: a server that echoes them in
    /// its error body.
    func hidingItsCredentials(_ redaction: Redaction) -> Redaction {
        var redaction = url.map { redaction.hidingCredentials(ofURL: $0.absoluteString) } ?? redaction
        if let request {
            let sent = redaction.hiddenValues(
                url: request.url?.absoluteString, headers: HTTPHeaders(request.allHTTPHeaderFields ?? [:]),
                body: request.httpBody, contentType: request.value(forHTTPHeaderField: "Content-Type"))
            redaction = redaction.hidingEchoes(of: sent)
        }
        return redaction
    }

    /// The response URL, hiding the credentials of the request sent too: a redirect can carry
    /// the request's token into the URL the response came from.
    func redactedURL(_ redaction: Redaction) -> String {
        url.map { hidingItsCredentials(redaction).redacted(url: $0.absoluteString) } ?? "the server"
    }
}

extension URLError.Code {
    /// A readable name for the codes people meet in practice.
    var name: String {
        switch self {
        case .cancelled: "cancelled"
        case .badURL: "bad URL"
        case .timedOut: "timed out"
        case .unsupportedURL: "unsupported URL"
        case .cannotFindHost: "cannot find host"
        case .cannotConnectToHost: "cannot connect to host"
        case .networkConnectionLost: "network connection lost"
        case .dnsLookupFailed: "DNS lookup failed"
        case .httpTooManyRedirects: "too many redirects"
        case .resourceUnavailable: "resource unavailable"
        case .notConnectedToInternet: "not connected to the internet"
        case .badServerResponse: "bad server response"
        case .secureConnectionFailed: "secure connection failed"
        case .unknown: "unknown error"
        default: "URL error"
        }
    }
}
