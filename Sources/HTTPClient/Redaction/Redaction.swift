import Foundation

/// What is hidden wherever a request or response is written or printed: cassettes, unmatched
/// request reports and their snippets, error and event descriptions, `httpc`'s messages.
///
/// One set of name rules covers header names, query and fragment parameters, form fields and
/// JSON members alike (two of ``standard``'s, `code` and `sid`, hide parameters only). Names are compared normalised: case, `-`, `_`, `.`, spaces and camelCase
/// boundaries do not matter, so the rule `accessToken` also hides `access_token`, `Access-Token`
/// and `ACCESS.TOKEN`. A hidden JSON member loses its whole value, whatever its type. With any
/// name rule, the password of a URL's user info (`https://user:password@host`) is hidden in
/// every text written, and so is the Basic credential built from it wherever it is echoed.
///
/// ```swift
/// let redaction = Redaction.standard
///     .name("X-Tenant")
///     .secret(ProcessInfo.processInfo.environment["API_TOKEN"] ?? "")
/// ```
///
/// A value registered with ``secret(_:)`` is found in every encoding it can travel in (as is,
/// percent-encoded in either hex case, `+` for a space, JSON-escaped, base64 and base64url at any
/// alignment) in URLs, headers and bodies, binary bodies included, and replaced.
public struct Redaction: Sendable {
    /// What hidden values are replaced with. URL-safe, so redacted URLs stay valid.
    public static let placeholder = "REDACTED"

    /// Which names are hidden.
    var nameRules: [NameRule]
    /// Values hidden wherever they appear, in any encoding (base64 included).
    var secrets: [String] {
        didSet { scanner = SecretScanner(echoes, withBase64: secrets) }
    }
    /// Values added by ``hiding(_:)``: found in their textual encodings (not base64, which
    /// would triple the forms looked for in a body that hides thousands of tokens).
    private var echoes: [String] = [] {
        didSet { scanner = SecretScanner(echoes, withBase64: secrets) }
    }
    /// Rules of your own, run last on every text that is written: URLs, header values and text
    /// bodies.
    var customRules: [@Sendable (String) -> String]
    private var scanner: SecretScanner

    /// A redaction from its parts; users start from ``standard`` or ``none``.
    init(nameRules: [NameRule], secrets: [String] = [], customRules: [@Sendable (String) -> String] = []) {
        self.nameRules = nameRules
        self.secrets = secrets
        self.customRules = customRules
        scanner = SecretScanner([], withBase64: secrets)
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

    /// Nothing hidden by name. Registered secrets are still hidden.
    public static let none = Redaction(nameRules: [])

    // MARK: Adding rules

    /// Also hides values named `name` (compared normalised).
    public func name(_ name: String) -> Redaction {
        var copy = self
        copy.nameRules.append(.name(name))
        return copy
    }

    /// Hides `value` everywhere, in any encoding. Empty values are ignored.
    public func secret(_ value: String) -> Redaction {
        guard !value.isEmpty else { return self }
        var copy = self
        copy.secrets.append(value)
        return copy
    }

    /// Adds a rule of your own, run on every text that is written.
    public func custom(_ rule: @escaping @Sendable (String) -> String) -> Redaction {
        var copy = self
        copy.customRules.append(rule)
        return copy
    }

    /// This redaction with `values` hidden too, wherever they appear, in every textual encoding
    /// (as registered secrets are, but not in base64). Values shorter than four characters are
    /// left out: hiding `1` or `no` everywhere would destroy the text.
    /// `package`: the client's errors, the stub engine's reports and httpc hide the credentials a
    /// request carried this way; users name a secret with ``secret(_:)``.
    package func hiding(_ values: some Sequence<String>) -> Redaction {
        let added = Set(values.filter { $0.count >= 4 && $0 != Self.placeholder }).subtracting(echoes)
        guard !added.isEmpty else { return self }
        var copy = self
        copy.echoes += added.sorted()
        return copy
    }

    /// Whether any value is hidden wherever it appears (registered, or added by ``hiding(_:)``).
    /// `package`: cassettes (HTTPClientStubs) skip scanning when nothing is hidden by value.
    package var hidesValues: Bool { !secrets.isEmpty || !echoes.isEmpty }

    // MARK: Names

    /// A name with case, `-`, `_`, `.`, spaces and other punctuation removed:
    /// `X-Api-Key`, `x_api_key` and `xApiKey` are all `xapikey`.
    static func normalized(_ name: String) -> String {
        String(decoding: normalizedBytes(name), as: UTF8.self)
    }

    static func normalizedBytes(_ name: String) -> [UInt8] {
        var ascii: [UInt8] = []
        ascii.reserveCapacity(name.utf8.count)
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): ascii.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): ascii.append(byte | 0x20)
            case 0x80...: return Array(normalizedUnicode(name).utf8)
            default: break
            }
        }
        return ascii
    }

    private static func normalizedUnicode(_ name: String) -> String {
        let kept = name.lowercased().unicodeScalars.filter { $0.properties.isAlphabetic || $0.properties.numericType != nil }
        return String(String.UnicodeScalarView(kept))
    }

    /// Whether values named `name` (a header or a JSON member name) are hidden.
    func hides(name: String) -> Bool {
        guard !nameRules.isEmpty else { return false }
        let normalized = Self.normalizedBytes(name)
        return nameRules.contains { !$0.isForParametersOnly && $0.matches(normalized) }
    }

    /// Whether values named `name` as a query or fragment parameter or a form field are hidden:
    /// every rule applies, those for parameters only too.
    func hides(parameter name: String) -> Bool {
        guard !nameRules.isEmpty else { return false }
        let normalized = Self.normalizedBytes(name)
        return nameRules.contains { $0.matches(normalized) }
    }

    // MARK: Applying

    /// The URL with hidden query and fragment parameters' values replaced (names kept), the
    /// password of its user info hidden (`https://user:REDACTED@host`; a user info without a
    /// password is hidden whole), and secrets removed from every part, path included.
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
    /// `package`: matchers and cassettes (HTTPClientStubs) redact one header at a time; users
    /// redact headers with `redacted(_:)`.
    package func redacted(header name: String, value: String) -> String {
        guard hides(name: name) else { return finishing(value) }
        // Cookie names and attributes are kept, so a recorded cookie is set again on replay.
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

    /// The body with hidden JSON members and form fields replaced and secrets removed. Binary
    /// bodies are searched for secrets too.
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
        var changed: Data? = SecretScanner.withBuffer(body) { buffer in
            guard !nameRules.isEmpty else { return nil }
            if Self.looksLikeJSON(buffer) { return JSONRedactor(hides: hides(name:)).redact(buffer)?.output }
            guard Self.isForm(contentType), let text = String(bytes: buffer, encoding: .utf8) else { return nil }
            let redacted = redactingParameters(Substring(text))
            return redacted == text ? nil : Data(redacted.utf8)
        }
        let placeholder = Array(Self.placeholder.utf8)
        if let scrubbed = changed.map({ scanner.replacing(in: $0, with: placeholder) }) ?? scanner.replacing(in: body, with: placeholder) {
            changed = scrubbed
        }
        if !customRules.isEmpty {
            let text =
                changed.map { String(data: $0, encoding: .utf8) } ?? SecretScanner.withBuffer(body) { String(bytes: $0, encoding: .utf8) }
            if let text {
                let rewritten = customRules.reduce(text) { text, rule in rule(text) }
                if rewritten != text { changed = Data(rewritten.utf8) }
            }
        }
        return changed
    }

    /// Any text (a report, a message) with secrets removed and the custom rules applied.
    public func redacted(text: String) -> String {
        finishing(text)
    }

    /// Whether a registered secret (or a value added by ``hiding(_:)``) is still in `bytes`, in
    /// any encoding.
    /// `package`: cassettes (HTTPClientStubs) refuse to write a secret that survived redaction.
    package func containsSecret(_ bytes: some Collection<UInt8>) -> Bool {
        scanner.occurs(in: bytes)
    }

    // MARK: Values hidden in one place, hidden everywhere

    /// The original values the name rules hide in a request or response: header values (and a
    /// bearer token without its scheme, cookie values without their names, the user and
    /// password of a Basic credential), the password of the URL's user info (and the Basic
    /// credential built from it), and query, fragment, form and JSON values.
    ///
    /// Servers echo credentials (a debug endpoint returning the request headers, a token in a
    /// redirect URL): pass these to ``hiding(_:)`` so a copy elsewhere is hidden too.
    /// `package`: cassettes, unmatched reports (HTTPClientStubs) and `httpc` hide echoes of
    /// what they saw; users name the values they know with ``secret(_:)``.
    package func hiddenValues(url: String?, headers: HTTPHeaders, body: Data?, contentType: String?) -> [String] {
        guard let body else { return hiddenValues(url: url, headers: headers, bodyBytes: nil, contentType: contentType) }
        return SecretScanner.withBuffer(body) { hiddenValues(url: url, headers: headers, bodyBytes: $0, contentType: contentType) }
    }

    /// ``hiddenValues(url:headers:body:contentType:)`` for a body read in place.
    func hiddenValues(
        url: String?, headers: HTTPHeaders, bodyBytes body: UnsafeBufferPointer<UInt8>?, contentType: String?
    ) -> [String] {
        guard !nameRules.isEmpty else { return [] }
        var values: [String] = []
        for field in headers where hides(name: field.name) {
            values += Self.parts(ofCredential: field.value, isSetCookie: Self.normalized(field.name) == "setcookie")
        }
        if let url {
            values += Self.userInfoCredentials(ofURL: url)
            let parts = Self.parts(ofURL: url)
            for list in [parts.query, parts.fragment].compactMap({ $0 }) {
                values += hiddenParameterValues(in: String(list))
            }
        }
        if let buffer = body, !buffer.isEmpty {
            if Self.looksLikeJSON(buffer) {
                values += JSONRedactor(hides: hides(name:)).redact(buffer)?.hidden ?? []
            } else if Self.isForm(contentType) || !buffer.contains(0x20), let text = String(bytes: buffer, encoding: .utf8) {
                // A form, or text that may be one (no spaces, so not prose).
                values += hiddenParameterValues(in: text)
            }
        }
        return values.map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0 != Self.placeholder }
    }

    /// A credential's value and the parts of it that may travel alone: each cookie's value, and
    /// the credential after a scheme (`Bearer ...`). A `Set-Cookie` line's attributes (`Path=/api`,
    /// `Domain=example.com`, `Expires=...`) are not secrets: hidden everywhere, they would take
    /// the recorded URL's path and host with them.
    private static func parts(ofCredential value: String, isSetCookie: Bool) -> [String] {
        var parts = [value]
        for (index, cookie) in Substring(value).splitScalars(";").enumerated() {
            let nameAndValue = cookie.splitScalars("=", maxSplits: 1)
            guard nameAndValue.count == 2 else { continue }
            if isSetCookie, index > 0, CookieRedaction.isAttribute(nameAndValue[0]) { continue }
            parts.append(String(nameAndValue[1]))
        }
        // A scheme is one token: `sid=abc; Path=/` has none.
        let atSpace = Substring(value).splitScalars(" ", maxSplits: 1)
        if atSpace.count == 2, !atSpace[0].unicodeScalars.contains(where: { $0 == "=" || $0 == ";" }) {
            let scheme = atSpace[0].lowercased()
            let credential = String(atSpace[1]).trimmingCharacters(in: .whitespaces)
            parts.append(credential)
            if scheme == "basic", let decoded = Data(base64Encoded: credential).flatMap({ String(data: $0, encoding: .utf8) }) {
                parts.append(decoded)
                if let password = Substring(decoded).afterScalar(":") { parts.append(String(password)) }
            }
        }
        return parts
    }

    // MARK: Helpers

    /// A URL's part before `?`, its query and its fragment, split by scalar: a combining mark
    /// after `#` or `?` must not hide the delimiter.
    private static func parts(ofURL url: String) -> (base: Substring, query: Substring?, fragment: Substring?) {
        let atHash = Substring(url).splitScalars("#", maxSplits: 1)
        let atQuestion = atHash[0].splitScalars("?", maxSplits: 1)
        return (atQuestion[0], atQuestion.count == 2 ? atQuestion[1] : nil, atHash.count == 2 ? atHash[1] : nil)
    }

    /// The values of the `name=value` pairs whose names are hidden.
    private func hiddenParameterValues(in text: String) -> [String] {
        FormPair.pairs(in: text).filter { hides(parameter: $0.name) }.flatMap(\.values)
    }

    /// `name=value` pairs with hidden values replaced; every other byte kept as written.
    private func redactingParameters(_ text: Substring) -> String {
        FormPair.pairs(in: String(text)).map { pair in
            guard pair.value != nil, hides(parameter: pair.name) else { return String(pair.raw) }
            return "\(pair.raw.splitScalars("=", maxSplits: 1)[0])=\(Self.placeholder)"
        }.joined(separator: "&")
    }

    private func finishing(_ text: String) -> String {
        var scrubbed = scanner.replacing(in: text, with: Self.placeholder)
        if !nameRules.isEmpty { scrubbed = Self.hidingUserInfo(in: scrubbed) }
        return customRules.reduce(scrubbed) { text, rule in rule(text) }
    }

    private static func looksLikeJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else { return false }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    private static func isForm(_ contentType: String?) -> Bool {
        contentType?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
    }
}

extension Redaction {
    /// How a rule matches a name, after both are normalised (see `Redaction.normalized(_:)`).
    struct NameRule: Sendable, Hashable, CustomStringConvertible {
        enum Kind: Sendable, Hashable { case exact, suffix, fragment }
        let kind: Kind
        /// The rule's text, normalised.
        let text: String
        /// Whether the rule hides query, fragment and form parameters only, not headers or JSON
        /// members: for a name that is a credential in a URL and an ordinary value elsewhere.
        let isForParametersOnly: Bool
        private let bytes: [UInt8]

        private init(kind: Kind, text: String, isForParametersOnly: Bool = false) {
            self.kind = kind
            self.text = text
            self.isForParametersOnly = isForParametersOnly
            bytes = Array(text.utf8)
        }

        /// Hides exactly this name.
        static func name(_ name: String) -> NameRule { NameRule(kind: .exact, text: Redaction.normalized(name)) }
        /// Hides exactly this name as a query or fragment parameter or a form field only (`code`).
        static func parameter(_ name: String) -> NameRule {
            NameRule(kind: .exact, text: Redaction.normalized(name), isForParametersOnly: true)
        }
        /// Hides every name ending with `suffix` (`token` hides `accessToken`, `X-Auth-Token`).
        static func endingWith(_ suffix: String) -> NameRule { NameRule(kind: .suffix, text: Redaction.normalized(suffix)) }
        /// Hides every name containing `fragment` (`secret` hides `client_secret`, `X-Secret-Id`).
        static func containing(_ fragment: String) -> NameRule {
            NameRule(kind: .fragment, text: Redaction.normalized(fragment))
        }

        /// Compared as bytes: `String.contains` goes through Foundation and costs a
        /// microsecond, which JSON with many members pays for every member.
        func matches(_ name: [UInt8]) -> Bool {
            switch kind {
            case .exact: return name == bytes
            case .suffix: return name.count >= bytes.count && name[(name.count - bytes.count)...].elementsEqual(bytes)
            case .fragment:
                guard name.count >= bytes.count, let first = bytes.first else { return bytes.isEmpty }
                for start in 0...(name.count - bytes.count) where name[start] == first {
                    if name[start..<(start + bytes.count)].elementsEqual(bytes) { return true }
                }
                return false
            }
        }

        var description: String {
            let pattern =
                switch kind {
                case .exact: text
                case .suffix: "*\(text)"
                case .fragment: "*\(text)*"
                }
            return isForParametersOnly ? "\(pattern) (parameters only)" : pattern
        }
    }
}
