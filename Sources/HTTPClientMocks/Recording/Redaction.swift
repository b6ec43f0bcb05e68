import Foundation
import HTTPClient

/// What is hidden before a recorded exchange touches disk (and in every report the stub engine
/// prints). On by default: credentials, cookies, API keys and tokens, in headers, query
/// parameters and JSON bodies, become `REDACTED`.
///
/// ```swift
/// let redaction = Redaction.standard
///     .header("X-Tenant")
///     .secret(ProcessInfo.processInfo.environment["API_TOKEN"] ?? "")
/// ```
///
/// A value registered with ``secret(_:)`` is replaced everywhere, and a cassette that still
/// contains it is never written.
public struct Redaction: Sendable {
    /// What redacted values are replaced with. URL-safe, so redacted URLs stay valid.
    public static let placeholder = "REDACTED"

    /// Header names (any case) whose values are hidden.
    public var headers: Set<String>
    /// Header names containing one of these (any case) are hidden too: `X-Api-Key`, `X-Auth-Token`...
    public var headerNameFragments: [String]
    /// Query parameter names (any case) whose values are hidden.
    public var queryParameters: Set<String>
    /// JSON body keys (any case, at any depth) whose string values are hidden.
    public var jsonKeys: Set<String>
    /// Values hidden wherever they appear; writing refuses a cassette that still contains one.
    public var secrets: [String]
    /// Rules of your own, run last.
    public var customRules: [@Sendable (inout Cassette.Interaction) -> Void]

    /// Credentials, cookies, API keys and tokens.
    public static let standard = Redaction(
        headers: ["authorization", "proxy-authorization", "cookie", "set-cookie"],
        headerNameFragments: ["api-key", "apikey", "auth-token", "access-token", "secret"],
        queryParameters: ["api_key", "apikey", "api-key", "key", "token", "access_token", "refresh_token", "id_token",
                          "secret", "client_secret", "password", "signature", "sig"],
        jsonKeys: ["password", "secret", "client_secret", "api_key", "apikey", "token", "access_token", "refresh_token", "id_token"],
        secrets: [], customRules: [])

    /// Nothing hidden. Registered secrets still block writing.
    public static let none = Redaction(headers: [], headerNameFragments: [], queryParameters: [], jsonKeys: [], secrets: [], customRules: [])

    public init(
        headers: Set<String>, headerNameFragments: [String], queryParameters: Set<String>, jsonKeys: Set<String>,
        secrets: [String], customRules: [@Sendable (inout Cassette.Interaction) -> Void]
    ) {
        self.headers = Set(headers.map { $0.lowercased() })
        self.headerNameFragments = headerNameFragments.map { $0.lowercased() }
        self.queryParameters = Set(queryParameters.map { $0.lowercased() })
        self.jsonKeys = Set(jsonKeys.map { $0.lowercased() })
        self.secrets = secrets
        self.customRules = customRules
    }

    // MARK: Adding rules

    /// Also hides this header.
    public func header(_ name: String) -> Redaction {
        var copy = self
        copy.headers.insert(name.lowercased())
        return copy
    }

    /// Also hides this query parameter.
    public func queryParameter(_ name: String) -> Redaction {
        var copy = self
        copy.queryParameters.insert(name.lowercased())
        return copy
    }

    /// Also hides this JSON key in bodies.
    public func jsonKey(_ name: String) -> Redaction {
        var copy = self
        copy.jsonKeys.insert(name.lowercased())
        return copy
    }

    /// Hides `value` everywhere and refuses to write a cassette that still contains it.
    public func secret(_ value: String) -> Redaction {
        guard !value.isEmpty else { return self }
        var copy = self
        copy.secrets.append(value)
        return copy
    }

    /// Adds a rule of your own.
    public func custom(_ rule: @escaping @Sendable (inout Cassette.Interaction) -> Void) -> Redaction {
        var copy = self
        copy.customRules.append(rule)
        return copy
    }

    // MARK: Applying

    /// Whether the value of header `name` is hidden.
    public func redactsHeader(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return headers.contains(lowered) || headerNameFragments.contains { lowered.contains($0) }
    }

    /// The value to show for header `name` in a report.
    func displayValue(ofHeader name: String, _ value: String) -> String {
        redactsHeader(name) ? "<redacted>" : value
    }

    /// `interaction` with every rule applied.
    ///
    /// A value hidden in one place is hidden everywhere in the interaction: servers echo
    /// credentials (a debug endpoint returning the request headers, a token in a redirect URL),
    /// and a rule that only looked at the header would let the copy in the body through.
    public func apply(to interaction: Cassette.Interaction) -> Cassette.Interaction {
        var scrubbing = self
        scrubbing.secrets += hiddenValues(in: interaction).filter { $0.count >= 4 }
        return scrubbing.applyRules(to: interaction)
    }

    /// The original values the rules hide: sensitive headers and query, form and JSON values.
    private func hiddenValues(in interaction: Cassette.Interaction) -> [String] {
        var values: [String] = []
        for header in interaction.request.headers + interaction.response.headers where redactsHeader(header.name) {
            values.append(header.value)
            // A cookie's value without its name, and a bearer token without its scheme.
            for part in header.value.split(separator: ";") {
                if let equals = part.firstIndex(of: "=") { values.append(String(part[part.index(after: equals)...])) }
            }
            if let space = header.value.firstIndex(of: " ") { values.append(String(header.value[header.value.index(after: space)...])) }
        }
        if let items = URLComponents(string: interaction.request.url)?.queryItems {
            values += items.filter { queryParameters.contains($0.name.lowercased()) }.compactMap(\.value)
        }
        for body in [interaction.request.body, interaction.response.body] {
            guard case .text(let text)? = body else { continue }
            if let json = try? JSONValue(parsing: Data(text.utf8)) {
                values += redactingJSON(json).hidden
            } else {
                for pair in FormPair.pairs(in: text) where hides(field: pair.name) {
                    values += [pair.value, pair.percentDecodedValue].compactMap { $0 }
                }
            }
        }
        return values.map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0 != Self.placeholder }
    }

    /// Whether a form field or JSON key of this name is hidden (any case).
    private func hides(field name: String) -> Bool {
        let lowered = name.lowercased()
        return queryParameters.contains(lowered) || jsonKeys.contains(lowered)
    }

    private func applyRules(to interaction: Cassette.Interaction) -> Cassette.Interaction {
        var result = interaction
        result.request.url = redactedURL(result.request.url)
        result.request.headers = result.request.headers.map(redacted)
        result.response.headers = result.response.headers.map(redacted)
        result.request.body = result.request.body.map { redacted($0, contentType: Self.contentType(result.request.headers)) }
        result.response.body = result.response.body.map { redacted($0, contentType: Self.contentType(result.response.headers)) }
        for rule in customRules { rule(&result) }
        return result
    }

    /// The URL with hidden query values replaced (and secrets removed).
    public func redactedURL(_ url: String) -> String {
        var text = replacingSecrets(in: url)
        guard var components = URLComponents(string: text), let items = components.percentEncodedQueryItems, !items.isEmpty else {
            return text
        }
        components.percentEncodedQueryItems = items.map { item in
            guard item.value != nil, queryParameters.contains((item.name.removingPercentEncoding ?? item.name).lowercased()) else { return item }
            return URLQueryItem(name: item.name, value: Self.placeholder)
        }
        text = components.string ?? text
        return text
    }

    private func redacted(_ header: Cassette.Header) -> Cassette.Header {
        redactsHeader(header.name)
            ? Cassette.Header(name: header.name, value: Self.placeholder)
            : Cassette.Header(name: header.name, value: replacingSecrets(in: header.value))
    }

    private static func contentType(_ headers: [Cassette.Header]) -> String {
        headers.first { $0.name.caseInsensitiveEquals("Content-Type") }?.value.lowercased() ?? ""
    }

    private func redacted(_ body: Cassette.Body, contentType: String) -> Cassette.Body {
        guard case .text(var text) = body else { return body }
        if contentType.hasPrefix("application/x-www-form-urlencoded") {
            text = redactingForm(text)
        } else if !jsonKeys.isEmpty, let json = try? JSONValue(parsing: Data(text.utf8)) {
            let redacted = redactingJSON(json)
            if !redacted.hidden.isEmpty { text = redacted.json.description }
        }
        return .text(replacingSecrets(in: text))
    }

    /// Form fields named like query parameters or JSON keys to hide (`password=...`).
    private func redactingForm(_ text: String) -> String {
        FormPair.pairs(in: text).map { pair in
            guard pair.value != nil, hides(field: pair.name) else { return String(pair.raw) }
            return "\(pair.raw.prefix { $0 != "=" })=\(Self.placeholder)"
        }.joined(separator: "&")
    }

    /// The JSON with the string values of hidden keys replaced, and the values it replaced.
    private func redactingJSON(_ value: JSONValue) -> (json: JSONValue, hidden: [String]) {
        switch value {
        case .object(let members):
            var hidden: [String] = []
            var result: [String: JSONValue] = [:]
            for (key, member) in members {
                if jsonKeys.contains(key.lowercased()), case .string(let text) = member {
                    result[key] = .string(Self.placeholder)
                    hidden.append(text)
                } else {
                    let inner = redactingJSON(member)
                    result[key] = inner.json
                    hidden += inner.hidden
                }
            }
            return (.object(result), hidden)
        case .array(let items):
            let mapped = items.map(redactingJSON)
            return (.array(mapped.map(\.json)), mapped.flatMap(\.hidden))
        default:
            return (value, [])
        }
    }

    private func replacingSecrets(in text: String) -> String {
        // Longest first, so a value is never half-replaced by a shorter one it contains.
        secrets.sorted { $0.count > $1.count }.reduce(text) { text, secret in
            var result = text.replacingOccurrences(of: secret, with: Self.placeholder)
            if let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics), encoded != secret {
                result = result.replacingOccurrences(of: encoded, with: Self.placeholder)
            }
            return result
        }
    }
}

/// When a cassette session records.
public enum RecordMode: String, Sendable, CaseIterable {
    /// Replay only; a request not in the cassette fails. The default, and what CI should use.
    case none
    /// Record everything when the cassette does not exist yet; otherwise replay only.
    case once
    /// Replay what the cassette has; record (and append) what it does not.
    case newEpisodes = "new_episodes"
    /// Record everything again, replacing the cassette.
    case all

    /// The environment variable that overrides the mode, so a developer can re-record without
    /// editing tests: `HTTPCLIENT_RECORD_MODE=all swift test`.
    public static let environmentVariable = "HTTPCLIENT_RECORD_MODE"

    /// The mode named by ``environmentVariable`` (`none`, `once`, `new_episodes`, `all`), or
    /// `fallback` when it is not set.
    ///
    /// - Throws: ``RecordModeError`` when the variable has another value (a typo should not
    ///   silently replay or record).
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment, default fallback: RecordMode = .none
    ) throws(RecordModeError) -> RecordMode {
        guard let value = environment[environmentVariable], !value.isEmpty else { return fallback }
        guard let mode = RecordMode(name: value) else { throw RecordModeError(value: value) }
        return mode
    }

    /// Parses `none`, `once`, `new_episodes` (or `newEpisodes`), `all`.
    public init?(name: String) {
        let normalized = name.lowercased().replacingOccurrences(of: "-", with: "_")
        if normalized == "newepisodes" { self = .newEpisodes; return }
        self.init(rawValue: normalized)
    }
}

/// An unknown record mode name.
public struct RecordModeError: Error, CustomStringConvertible, LocalizedError {
    public let value: String
    public var description: String {
        "Unknown record mode \"\(value)\" (in \(RecordMode.environmentVariable) or --record-mode): use none, once, new_episodes or all."
    }
    public var errorDescription: String? { description }
}
