import Foundation
import HTTPClient

/// What a ``StubServer`` answers itself, before its stubs see a request: `OPTIONS *`, which
/// asks about the server rather than a resource, and 501 to a method no stub can answer.
///
/// Methods are case-sensitive (RFC 9110 section 9.1): `get` is not `GET`. A method of the IANA
/// HTTP Method Registry, spelled as registered, goes to the stubs (an unstubbed one gets the
/// unmatched report, as any request). Another token (`PURGE`, `FOO`) goes to them only when a
/// stub answers it, one stubbed for that method or for any method; otherwise it is 501. A token
/// with a lower-case letter is always 501: a stub's method is upper case, so any stub that took
/// it would answer it as another method.
enum ServerOwnAnswer: Equatable {
    /// `OPTIONS *`: 204, nothing to say about the server as a whole.
    case serverOptions
    /// 501 Not Implemented, and why.
    case notImplemented(String)

    /// The server's own answer to `head` (resolved as `request`), or nil when the stubs answer it.
    /// - Parameters:
    ///   - head: the request line and headers.
    ///   - request: the request as the registry would see it.
    ///   - registry: the stubs, asked whether one answers a method outside the registry.
    init?(to head: HTTPRequestHead, request: URLRequest, registry: StubRegistry) {
        if head.target == "*" {
            self = .serverOptions
            return
        }
        let method = head.method
        if Self.registeredMethods.contains(method) { return nil }
        if HTTPMethod(rawValue: method).rawValue != method {
            self = .notImplemented(
                "\(method) is not implemented: methods are case-sensitive (RFC 9110 section 9.1), "
                    + "and \(method) is not \(method.uppercased())")
            return
        }
        if registry.firstMatch(for: RecordedRequest(request)) != nil { return nil }
        self = .notImplemented(
            "\(method) is not implemented: no stub answers it (stub it with HTTPMethod(rawValue: \"\(method)\"))")
    }

    /// The status answered.
    var status: Int {
        switch self {
        case .serverOptions: 204
        case .notImplemented: 501
        }
    }

    /// Why the server answered, for the log.
    var logLine: String {
        switch self {
        case .serverOptions: "the server itself: OPTIONS * asks about the server, not a resource"
        case .notImplemented(let reason): "the server itself: \(reason)"
        }
    }

    /// The answer's bytes.
    /// - Parameter head: the request, for its method and its `Connection` line.
    func bytes(for head: HTTPRequestHead) -> [UInt8] {
        switch self {
        case .serverOptions:
            return HTTPResponseWriter.response(
                status: 204, headers: [], body: Data(), method: head.method, connection: head.answerConnectionLine)
        case .notImplemented(let reason):
            return HTTPResponseWriter.response(
                status: 501, headers: [HTTPHeaders.Field(name: "Content-Type", value: "text/plain; charset=utf-8")],
                body: Data((reason + "\n").utf8), method: head.method, connection: head.answerConnectionLine)
        }
    }

    /// The methods of the IANA HTTP Method Registry, as registered (all upper case).
    static let registeredMethods: Set<String> = [
        "ACL", "BASELINE-CONTROL", "BIND", "CHECKIN", "CHECKOUT", "CONNECT", "COPY", "DELETE", "GET", "HEAD", "LABEL", "LINK",
        "LOCK", "MERGE", "MKACTIVITY", "MKCALENDAR", "MKCOL", "MKREDIRECTREF", "MKWORKSPACE", "MOVE", "OPTIONS", "ORDERPATCH",
        "PATCH", "POST", "PRI", "PROPFIND", "PROPPATCH", "PUT", "QUERY", "REBIND", "REPORT", "SEARCH", "TRACE", "UNBIND",
        "UNCHECKOUT", "UNLINK", "UNLOCK", "UPDATE", "UPDATEREDIRECTREF", "VERSION-CONTROL",
    ]
}
