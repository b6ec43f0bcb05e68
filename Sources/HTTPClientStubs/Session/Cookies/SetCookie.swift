import Foundation
import HTTPClient

/// One `Set-Cookie` field, parsed and checked against the URL that sent it by the rules of
/// RFC 6265 (sections 5.2 and 5.3) as Apple's `HTTPCookieStorage` applies them. The engine
/// parses cookies itself because swift-corelibs-foundation's parser and storage apply none of
/// these rules (a `Secure` cookie went out over http, `Max-Age=-1` kept the cookie,
/// `Domain=com` reached every .com host): parsed here, the rules are the same on every platform.
package enum SetCookie: Equatable, Sendable {
    /// Store `cookie`, replacing one of the same name, domain and path.
    case store(HTTPCookie)
    /// The cookie has expired (`Max-Age` of zero or less, an `Expires` in the past): remove a
    /// stored cookie of this name, domain and path.
    case delete(name: String, domain: String, path: String)
    /// Not stored, for `reason`.
    case refuse(reason: String)

    /// The largest `Set-Cookie` value kept, in bytes (name, value and attributes): the minimum
    /// RFC 6265 section 6.1 asks a user agent to support, and what browsers keep.
    package static let maximumSize = 4096

    /// What a `Set-Cookie` value `line` received from `url` asks for, at `now`.
    package static func decide(_ line: String, from url: URL, now: Date = Date()) -> SetCookie {
        guard line.utf8.count <= maximumSize else {
            return .refuse(reason: "it is \(line.utf8.count) bytes, more than the \(maximumSize) a cookie may have")
        }
        guard let host = CookieRules.canonicalHost(of: url) else { return .refuse(reason: "\(url.absoluteString) has no host") }
        var parts = line.split(separator: ";", omittingEmptySubsequences: false)[...]
        guard let pair = parts.popFirst(), let equals = pair.firstIndex(of: "=") else {
            return .refuse(reason: "it has no name=value pair")
        }
        let name = CookieRules.trimmed(pair[..<equals])
        let value = CookieRules.trimmed(pair[pair.index(after: equals)...])
        guard !name.isEmpty else { return .refuse(reason: "its name is empty") }
        guard !CookieRules.hasControlCharacter(name + value) else { return .refuse(reason: "its name or value holds a control character") }

        var attributes = Attributes()
        for part in parts { attributes.read(part, now: now) }

        let isSecureRequest = url.scheme?.lowercased() == "https"
        if attributes.secure, !isSecureRequest { return .refuse(reason: "it is Secure and came over \(url.scheme ?? "no scheme")") }
        let domain: String
        if let attribute = attributes.domain {
            if attribute == host {
                domain = host  // RFC 6265 5.3 step 6: the request host itself is host-only
            } else if PublicSuffixes.isPublicSuffix(attribute) {
                return .refuse(reason: "its Domain \(attribute) is a public suffix")
            } else if !CookieRules.domainMatches(host, attribute) {
                return .refuse(reason: "its Domain \(attribute) does not domain-match the host \(host)")
            } else {
                domain = "." + attribute
            }
        } else {
            domain = host
        }
        let path = attributes.path ?? CookieRules.defaultPath(of: url)
        if let expiry = attributes.expiry, expiry <= now { return .delete(name: name, domain: domain, path: path) }

        var properties: [HTTPCookiePropertyKey: Any] = [.name: name, .value: value, .domain: domain, .path: path]
        if attributes.secure { properties[.secure] = "TRUE" }
        if attributes.httpOnly { properties[CookieRules.httpOnlyKey] = "TRUE" }
        if let expiry = attributes.expiry { properties[.expires] = expiry }
        guard let cookie = HTTPCookie(properties: properties) else { return .refuse(reason: "Foundation refused it") }
        return .store(cookie)
    }

    /// The attributes after the name-value pair; the last of each kind counts.
    private struct Attributes {
        var expiry: Date?
        var maxAgeSeen = false
        var domain: String?
        var path: String?
        var secure = false
        var httpOnly = false

        mutating func read(_ part: Substring, now: Date) {
            let equals = part.firstIndex(of: "=")
            let name = CookieRules.trimmed(part[..<(equals ?? part.endIndex)]).lowercased()
            let value = equals.map { CookieRules.trimmed(part[part.index(after: $0)...]) } ?? ""
            switch name {
            case "expires":
                // Max-Age wins over Expires, wherever it comes (RFC 6265 5.3 step 3).
                guard !maxAgeSeen, let date = Self.date(value, now: now) else { return }
                expiry = date
            case "max-age":
                guard let first = value.first, first == "-" || first.isASCII && first.isNumber,
                    value.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber })
                else { return }
                maxAgeSeen = true
                // Digits beyond Int are still "a long time"; zero or less expires at once.
                let seconds = Int(value) ?? (first == "-" ? Int.min : Int.max)
                expiry = seconds <= 0 ? .distantPast : now.addingTimeInterval(TimeInterval(seconds))
            case "domain":
                var domain = value.lowercased()
                if domain.hasPrefix(".") { domain.removeFirst() }
                domain = domain.hasSuffix(".") ? "" : domain
                if !domain.isEmpty { self.domain = domain }
            case "path":
                path = value.hasPrefix("/") ? value : nil
            case "secure":
                secure = true
            case "httponly":
                httpOnly = true
            default:
                return
            }
        }

        /// An HTTP-date, or the `21-Oct-2065` form many servers still send in cookies.
        private static func date(_ text: String, now: Date) -> Date? {
            Timestamps.httpDate(text, now: now) ?? Timestamps.httpDate(text.replacingOccurrences(of: "-", with: " "), now: now)
        }
    }
}
