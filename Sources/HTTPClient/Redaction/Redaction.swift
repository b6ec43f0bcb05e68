import Foundation

/// What the client hides wherever it prints a request or a response: in ``HTTPClientEvent``s,
/// ``HTTPClientError`` descriptions and printed responses.
///
/// One set of name rules covers header names, query and fragment parameters, form fields and
/// JSON members alike (two of ``standard``'s, `code` and `sid`, hide parameters only). Names are
/// compared normalised: case, `-`, `_`, `.`, spaces and camelCase boundaries do not matter, so the
/// rule `accessToken` also hides `access_token`, `Access-Token` and `ACCESS.TOKEN`. A hidden JSON
/// member loses its whole value, whatever its type. With any name rule, the password of a URL's
/// user info (`https://user:password@host`) is hidden in every text written. The headers the
/// rules hide are also the ones a request keeps on its own origin (see
/// ``HTTPClient/Request/configure``).
///
/// ```swift
/// client.redaction = .standard.name("X-Tenant")
/// ```
///
/// The stub engine (`HTTPClientStubs`) applies the same value to what it writes (cassettes,
/// reports, `httpc`'s messages) and adds two rules for them: `secret(_:)`, a value found in every
/// encoding it can travel in, and `custom(_:)`, a rewrite of your own. A redaction built with
/// them applies them wherever it is used, every `redacted` method and the client's messages
/// included.
public struct Redaction: Sendable {
    /// What hidden values are replaced with. URL-safe, so redacted URLs stay valid.
    public static let placeholder = "REDACTED"

    /// Which names are hidden.
    var nameRules: [NameRule]
    /// Values hidden wherever a text repeats them as they are: the credentials of the request a
    /// message is about, which a server may echo (see `hidingEchoes(of:)`).
    var echoes = EchoedValues()
    /// Rules HTTPClientStubs adds, run after the client's own on every text and body.
    /// `package`: HTTPClientStubs stores registered secrets and custom rules here, so that one
    /// value carries every rule and a secret set on ``HTTPClient/redaction`` is hidden in the
    /// client's events and errors too.
    package var addedRules: (any AddedRedactionRules)?

    /// A redaction from its name rules; users start from ``standard`` or ``none``.
    init(nameRules: [NameRule]) {
        self.nameRules = nameRules
    }

    /// Credentials, cookies, keys, signatures, sessions and tokens, under the names HTTP, OAuth,
    /// OpenID Connect, JWT and session cookies give them (`*` stands for any text):
    ///
    /// - Schemes: `*Authorization` (`Proxy-Authorization` too), `*Authentication`, `auth`,
    ///   `X-Auth`, `*authkey*` (`X-Auth-Key`), `*cookie*`.
    /// - Passwords and codes a person types: `*password*`, `*passwd*`, `pwd`, `*passcode*`,
    ///   `pin`, `*otp` (`totp`).
    /// - Tokens and what proves one: `*token`, `*tokens` (`access_token`, `id_token`,
    ///   `refresh_token`), `*jwt*`, `*assertion` (`client_assertion`), `*verifier`
    ///   (`code_verifier`, `oauth_verifier`), `device_code`, `SAMLResponse`.
    /// - Keys and signatures: `*secret*` (`client_secret`), `*apikey*`, `key`, `*accesskey*`,
    ///   `*privatekey*`, `*subscriptionkey` (`Ocp-Apim-Subscription-Key`), `*signature*`, `sig`,
    ///   `*credential*`.
    /// - Sessions and forgery guards: `*session*`, `*sessid*`, `*csrf*`, `*xsrf*`.
    /// - As query, fragment and form parameters only: `code` (an OAuth authorization code in
    ///   `?code=`, an error code in a JSON body) and `sid` (a session in `?sid=`, an ordinary
    ///   identifier as a JSON member).
    ///
    /// Ordinary names stay readable: `state`, `nonce`, `code_challenge`, `countryCode`,
    /// `zipcode`, `author`, `authorization_endpoint`, `WWW-Authenticate`, `Idempotency-Key`.
    public static let standard = Redaction(nameRules: [
        .endingWith("authorization"), .endingWith("authentication"), .name("auth"), .name("x-auth"),
        .containing("authkey"), .containing("cookie"),
        .containing("password"), .containing("passwd"), .name("pwd"), .containing("passcode"), .name("pin"), .endingWith("otp"),
        .endingWith("token"), .endingWith("tokens"), .containing("jwt"), .endingWith("assertion"), .endingWith("verifier"),
        .name("device_code"), .name("SAMLResponse"),
        .containing("secret"), .containing("apikey"), .name("key"), .containing("accesskey"), .containing("privatekey"),
        .endingWith("subscriptionkey"), .containing("signature"), .name("sig"), .containing("credential"),
        .containing("session"), .containing("sessid"), .containing("csrf"), .containing("xsrf"),
        .parameter("code"), .parameter("sid"),
    ])

    /// Nothing hidden by name.
    public static let none = Redaction(nameRules: [])

    /// Also hides values named `name` (compared normalised).
    public func name(_ name: String) -> Redaction {
        var copy = self
        copy.nameRules.append(.name(name))
        return copy
    }

    // MARK: Applying

    /// The URL with hidden query and fragment parameters' values replaced (names kept), and the
    /// password of its user info hidden (`https://user:REDACTED@host`; a user info without a
    /// password is hidden whole) wherever the URL repeats it.
    ///
    /// - Parameter url: The URL as text (`url.absoluteString` for a `URL`).
    public func redacted(url: String) -> String {
        guard !nameRules.isEmpty else { return finishing(url) }
        // The password is hidden wherever else the URL repeats it (`?token=` the same value): the
        // same URL then redacts alike whether or not the request around it was seen.
        let redaction = hidingCredentials(ofURL: url)
        let parts = Self.parts(ofURL: url)
        var text = String(parts.base) + (parts.query.map { "?" + redaction.redactingParameters($0) } ?? "")
        if let fragment = parts.fragment {
            text += "#" + (fragment.contains("=") ? redaction.redactingParameters(fragment) : String(fragment))
        }
        return redaction.finishing(text)
    }

    /// The URL, redacted; `nil` stays `nil`.
    func redacted(url: URL?) -> URL? {
        guard let url else { return nil }
        return URL(string: redacted(url: url.absoluteString)) ?? url
    }

    /// The value to write for header `name`.
    /// `package`: matchers, reports and cassettes (HTTPClientStubs) redact one header at a time;
    /// users redact headers with `redacted(_:)`.
    package func redacted(header name: String, value: String) -> String {
        guard hides(name: name) else {
            // A redirect's target is a URL: its query and fragment parameters are hidden as a
            // request's are (`Location: /done?access_token=...`, relative or absolute).
            switch Self.normalized(name) {
            case "location", "contentlocation": return redacted(url: value)
            default: return finishing(value)
            }
        }
        // Cookie names and attributes are kept: a logged cookie stays recognisable, and a recorded
        // one is set again on replay.
        switch Self.normalized(name) {
        case "cookie": return finishing(CookieRedaction.cookie(value))
        case "setcookie": return finishing(CookieRedaction.setCookie(value))
        default: return Self.placeholder
        }
    }

    /// The headers with hidden values replaced.
    public func redacted(_ headers: HTTPHeaders) -> HTTPHeaders {
        HTTPHeaders(headers.map { HTTPHeaders.Field(name: $0.name, value: redacted(header: $0.name, value: $0.value)) })
    }

    /// The body with hidden JSON members and form fields replaced.
    ///
    /// - Parameters:
    ///   - body: The body as sent or received.
    ///   - contentType: The body's `Content-Type`, which says whether it is a form.
    public func redacted(body: Data, contentType: String?) -> Data {
        redactedBytes(body, contentType: contentType) ?? body
    }

    /// The bytes redacted as ``redacted(body:contentType:)`` does, or `nil` when nothing
    /// changes: large bodies are read in place and copied only where something is hidden.
    /// `package`: cassettes (HTTPClientStubs) redact bodies they hold as bytes.
    package func redactedBytes(_ body: some Collection<UInt8>, contentType: String?) -> Data? {
        guard !body.isEmpty else { return nil }
        var changed: Data? = Self.withBuffer(body) { buffer in
            guard !nameRules.isEmpty else { return nil }
            if Self.looksLikeJSON(buffer) { return JSONRedactor(hides: hides(name:)).redact(buffer)?.output }
            guard Self.isForm(contentType), let text = String(bytes: buffer, encoding: .utf8) else { return nil }
            let redacted = redactingParameters(Substring(text))
            return redacted == text ? nil : Data(redacted.utf8)
        }
        if let hidden = changed.map({ echoes.replacing(in: $0) }) ?? echoes.replacing(in: body) { changed = hidden }
        if let addedRules {
            let further =
                changed.map { Self.withBuffer($0, addedRules.redacting(bytes:)) } ?? Self.withBuffer(body, addedRules.redacting(bytes:))
            if let further { changed = further }
        }
        return changed
    }

    /// Any text (a report, a message) with the password of every URL in it hidden.
    public func redacted(text: String) -> String {
        finishing(text)
    }

    // MARK: Helpers

    /// A URL's part before `?`, its query and its fragment, split by scalar: a combining mark
    /// after `#` or `?` must not hide the delimiter.
    static func parts(ofURL url: String) -> (base: Substring, query: Substring?, fragment: Substring?) {
        let atHash = Substring(url).splitScalars("#", maxSplits: 1)
        let atQuestion = atHash[0].splitScalars("?", maxSplits: 1)
        return (atQuestion[0], atQuestion.count == 2 ? atQuestion[1] : nil, atHash.count == 2 ? atHash[1] : nil)
    }

    /// `name=value` pairs with hidden values replaced; every other byte kept as written.
    private func redactingParameters(_ text: Substring) -> String {
        FormPair.pairs(in: String(text)).map { pair in
            guard pair.hasValue, hides(parameter: pair.name) else { return String(pair.raw) }
            return "\(pair.raw.splitScalars("=", maxSplits: 1)[0])=\(Self.placeholder)"
        }.joined(separator: "&")
    }

    /// What every text written goes through last: echoes hidden, user info hidden, then the
    /// added rules.
    private func finishing(_ text: String) -> String {
        var scrubbed = echoes.replacing(in: text)
        if !nameRules.isEmpty { scrubbed = Self.hidingUserInfo(in: scrubbed) }
        return addedRules?.redacting(text: scrubbed) ?? scrubbed
    }

    static func looksLikeJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else { return false }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    static func isForm(_ contentType: String?) -> Bool {
        contentType?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
    }

    /// Runs `body` on the bytes in place when they are contiguous, else on a copy.
    static func withBuffer<Result>(_ bytes: some Collection<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = bytes.withContiguousStorageIfAvailable(body) { return result }
        return Array(bytes).withUnsafeBufferPointer(body)
    }
}

/// Rules another module adds to a ``Redaction``, run after the redaction's own on every text and
/// body it writes.
/// `package`: HTTPClientStubs adds registered secrets (found in every encoding) and custom rules
/// this way, and the client carries none of their machinery.
package protocol AddedRedactionRules: Sendable {
    /// `text` with what the rules hide replaced.
    func redacting(text: String) -> String
    /// `bytes` (a body) with what the rules hide replaced, or `nil` when nothing changes.
    func redacting(bytes: UnsafeBufferPointer<UInt8>) -> Data?
}
