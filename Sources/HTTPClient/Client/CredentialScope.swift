import Foundation

/// The rule that keeps a client's credentials on the origin a request was built for.
///
/// A request is built for one URL (its own, or a path on the base URL), and the client's
/// headers and interceptors add credentials for that origin (scheme, host and port). When a
/// request's `configure` closure moves it to another origin, the credentials the client added
/// are not sent there: every header the redaction hides (``Redaction/standard``'s names, and
/// the client's own ``HTTPClient/redaction`` rules: `Authorization`, `Cookie`, `X-Api-Key`,
/// `X-Auth-Token`...) is removed unless the closure set it itself, and the interceptors (a
/// `BearerTokenInterceptor`, for one) cannot add or change one. The closure stays the last word:
/// a credential it sets is sent.
enum CredentialScope {
    /// Whether a header named `name` carries a credential: what the redaction hides, the
    /// standard names at least, so that switching redaction off does not send them elsewhere.
    static func isCredential(_ name: String, hiddenBy redaction: Redaction) -> Bool {
        Redaction.standard.hides(name: name) || redaction.hides(name: name)
    }

    private static func credentialNames(in request: URLRequest, hiddenBy redaction: Redaction) -> [String] {
        (request.allHTTPHeaderFields ?? [:]).keys.filter { isCredential($0, hiddenBy: redaction) }
    }

    /// Whether `configured` goes to another origin than `built` (a missing URL counts as one).
    static func leavesOrigin(_ built: URLRequest, _ configured: URLRequest) -> Bool {
        guard let from = built.url, let to = configured.url else { return true }
        return from.scheme?.lowercased() != to.scheme?.lowercased() || from.host?.lowercased() != to.host?.lowercased()
            || port(of: from) != port(of: to)
    }

    /// Removes from `configured` the credentials it still carries as `built` had them: the
    /// client's, which the closure left alone. What the closure set or changed stays.
    static func removeTheClientsCredentials(from configured: inout URLRequest, builtAs built: URLRequest, hiddenBy redaction: Redaction) {
        for name in credentialNames(in: configured, hiddenBy: redaction) {
            guard let value = configured.value(forHTTPHeaderField: name), value == built.value(forHTTPHeaderField: name) else {
                continue
            }
            configured.setValue(nil, forHTTPHeaderField: name)
        }
    }

    /// Gives `adapted` back the credentials of `prepared` (or none), whatever the interceptors
    /// did to them.
    static func restoreCredentials(of prepared: URLRequest, in adapted: inout URLRequest, hiddenBy redaction: Redaction) {
        for name in credentialNames(in: prepared, hiddenBy: redaction) + credentialNames(in: adapted, hiddenBy: redaction) {
            adapted.setValue(prepared.value(forHTTPHeaderField: name), forHTTPHeaderField: name)
        }
    }

    /// The port, with the scheme's default when the URL names none (`https://h` is `https://h:443`).
    private static func port(of url: URL) -> Int? {
        if let port = url.port { return port }
        switch url.scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }
}
