import Foundation
import HTTPClient

/// Which stored cookies a request carries and how a response's cookies enter the storage, by
/// RFC 6265 (matching in section 5.1, storing in 5.3, sending in 5.4). The cookies live in the
/// session configuration's `HTTPCookieStorage`, where the app and the test expect to find them;
/// the rules are applied here, not by the storage, because swift-corelibs-foundation's storage
/// applies almost none of them and Apple's applies them when it parses, which the engine does
/// itself (``SetCookie``).
///
/// A cookie whose domain starts with a dot is a domain cookie (sent to the domain and its
/// subdomains); without one it is host-only, the convention of Foundation on every platform.
package enum CookieRules {
    /// The most cookies kept for one domain: a later one (not replacing one of the same name
    /// and path) is not stored. RFC 6265 section 6.1 asks for at least 50; browsers keep 50 to 180.
    package static let maximumCookiesPerDomain = 50

    static let httpOnlyKey = HTTPCookiePropertyKey("HttpOnly")

    // MARK: Sending

    /// The cookies of `storage` that a request to `url` carries at `now`, longest path first:
    /// unexpired, host-only for its exact host or domain-matching, path-matching, and `Secure`
    /// only over https.
    package static func cookies(for url: URL, in storage: HTTPCookieStorage, now: Date = Date()) -> [HTTPCookie] {
        // An empty storage, the usual case, is the cheapest question: asked before any work on the URL.
        guard let cookies = storage.cookies, !cookies.isEmpty, let host = canonicalHost(of: url) else { return [] }
        let isSecure = url.scheme?.lowercased() == "https"
        let path = requestPath(of: url)
        return
            cookies
            .filter { cookie in
                (cookie.expiresDate.map { $0 > now } ?? true) && (isSecure || !cookie.isSecure) && sends(cookie, to: host)
                    && pathMatches(path, cookie.path)
            }
            .sorted { $0.path.utf8.count > $1.path.utf8.count }
    }

    /// Whether `cookie` goes to `host`: the same host for a host-only cookie, a domain-match
    /// for a domain cookie.
    static func sends(_ cookie: HTTPCookie, to host: String) -> Bool {
        let domain = cookie.domain.lowercased()
        guard domain.hasPrefix(".") else { return host == domain }
        return domainMatches(host, String(domain.dropFirst()))
    }

    // MARK: Storing

    /// Applies each `Set-Cookie` value of a response from `url` to `storage`: stores, replaces
    /// or deletes as ``SetCookie/decide(_:from:now:)`` says, and stores no more than
    /// ``maximumCookiesPerDomain`` cookies for one domain.
    package static func apply(_ setCookies: [String], from url: URL, to storage: HTTPCookieStorage, now: Date = Date()) {
        for line in setCookies {
            switch SetCookie.decide(line, from: url, now: now) {
            case .store(let cookie):
                let stored = storage.cookies ?? []
                let sameDomain = stored.filter { bareDomain($0) == bareDomain(cookie) }
                let replaces = sameDomain.contains { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
                guard replaces || sameDomain.count < maximumCookiesPerDomain else { continue }
                storage.setCookie(cookie)
            case .delete(let name, let domain, let path):
                for cookie in storage.cookies ?? [] where cookie.name == name && cookie.domain == domain && cookie.path == path {
                    storage.deleteCookie(cookie)
                }
            case .refuse:
                continue
            }
        }
    }

    private static func bareDomain(_ cookie: HTTPCookie) -> Substring {
        let domain = Substring(cookie.domain.lowercased())
        return domain.hasPrefix(".") ? domain.dropFirst() : domain
    }

    // MARK: Matching (RFC 6265 section 5.1)

    /// The request host in lower case, without a trailing dot; `nil` when the URL has none, or
    /// one with an empty label (`.co.uk`, `a..b`): its leading dot would read as a domain cookie's.
    static func canonicalHost(of url: URL) -> String? {
        guard var host = url.host?.lowercased() else { return nil }
        if host.hasSuffix(".") { host.removeLast() }
        guard !host.isEmpty, !host.hasPrefix("."), !host.contains("..") else { return nil }
        return host
    }

    /// Section 5.1.3: `host` is `domain`, or a name (not an IP address) under it.
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        host == domain || (host.hasSuffix("." + domain) && !isIPAddress(host))
    }

    static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || host.allSatisfy { $0 == "." || ($0.isASCII && $0.isNumber) }
    }

    /// The path a cookie is matched against: the URL's path as sent (percent-encoded, its
    /// trailing slash kept, which `URL.path` drops on Apple platforms).
    static func requestPath(of url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? ""
        return path.isEmpty ? "/" : path
    }

    /// Section 5.1.4: the directory of the request path, the path of a cookie without `Path`.
    static func defaultPath(of url: URL) -> String {
        let path = requestPath(of: url)
        guard path.hasPrefix("/"), let lastSlash = path.lastIndex(of: "/"), lastSlash != path.startIndex else { return "/" }
        return String(path[..<lastSlash])
    }

    /// Section 5.1.4: `cookiePath` is `requestPath`, or a prefix of it that ends at a `/`.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        guard requestPath.utf8.starts(with: cookiePath.utf8) else { return false }
        if requestPath.utf8.count == cookiePath.utf8.count || cookiePath.hasSuffix("/") { return true }
        return requestPath.utf8.dropFirst(cookiePath.utf8.count).first == UInt8(ascii: "/")
    }

    // MARK: Parsing helpers

    /// Without the spaces and tabs around it (RFC 6265 trims only those).
    static func trimmed(_ text: Substring) -> String {
        String(text.trimmingCharacters(in: CharacterSet(charactersIn: " \t")))
    }

    static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }
}
