import Foundation
import HTTPClient

// What the stub engine adds to the client's name rules for what it writes to files and test
// logs (cassettes, reports, httpc's messages): values hidden wherever they appear, in every
// encoding, and rules of your own. They live in the redaction value itself (its `addedRules`),
// so a redaction built here hides the same things wherever it is used, the client's events and
// errors included.
extension Redaction {
    /// Hides `value` everywhere, in every encoding it can travel in: as written, percent-encoded
    /// in either hex case, `+` for a space, JSON-escaped, and as base64 and base64url at any
    /// alignment (inside a longer base64 text too), in URLs, headers and bodies, binary bodies
    /// included. A cassette that would still hold it is not written. Empty values are ignored.
    ///
    /// ```swift
    /// let redaction = Redaction.standard.secret(ProcessInfo.processInfo.environment["API_TOKEN"] ?? "")
    /// ```
    public func secret(_ value: String) -> Redaction {
        guard !value.isEmpty else { return self }
        return changingSecretRules { $0.secrets.append(value) }
    }

    /// Adds a rule of your own, run last on every text that is written: URLs, header values and
    /// text bodies.
    public func custom(_ rule: @escaping @Sendable (String) -> String) -> Redaction {
        changingSecretRules { $0.customRules.append(rule) }
    }

    /// This redaction with `values` hidden too, wherever they appear, in every textual encoding
    /// (as registered secrets are, but not in base64, which would triple the forms looked for in
    /// a body that hides thousands of tokens). Values shorter than four characters are left out:
    /// hiding `1` or `no` everywhere would destroy the text.
    /// `package`: httpc hides the credentials a request carried this way, as reports and
    /// cassettes do; users name a secret with ``secret(_:)``.
    package func hiding(_ values: some Sequence<String>) -> Redaction {
        let rules = secretRules
        let added = Set(values.filter { $0.count >= 4 && $0 != Self.placeholder }).subtracting(rules.echoes)
        guard !added.isEmpty else { return self }
        return changingSecretRules { $0.echoes += added.sorted() }
    }

    /// Whether any value is hidden wherever it appears (registered, or added by ``hiding(_:)``):
    /// cassettes skip searching for one when none is.
    var hidesValues: Bool { !secretRules.secrets.isEmpty || !secretRules.echoes.isEmpty }

    /// Whether a registered secret (or a value added by ``hiding(_:)``) is still in `bytes`, in
    /// any encoding: cassettes refuse to write one that survived redaction.
    func containsSecret(_ bytes: some Collection<UInt8>) -> Bool {
        secretRules.scanner.occurs(in: bytes)
    }

    private var secretRules: SecretRules { addedRules as? SecretRules ?? SecretRules() }

    private func changingSecretRules(_ change: (inout SecretRules) -> Void) -> Redaction {
        var rules = secretRules
        change(&rules)
        var copy = self
        copy.addedRules = rules
        return copy
    }
}

/// The rules ``Redaction/secret(_:)``, ``Redaction/custom(_:)`` and `hiding(_:)` add, run after
/// the client's own: values found by one scanner (registered secrets in base64 too), then the
/// custom rules, last.
struct SecretRules: AddedRedactionRules {
    /// Values hidden wherever they appear, in any encoding (base64 included).
    var secrets: [String] = [] {
        didSet { scanner = SecretScanner(echoes, withBase64: secrets) }
    }
    /// Values added by `hiding(_:)`: found in their textual encodings.
    var echoes: [String] = [] {
        didSet { scanner = SecretScanner(echoes, withBase64: secrets) }
    }
    var customRules: [@Sendable (String) -> String] = []
    private(set) var scanner = SecretScanner([])

    private static let placeholder = Array(Redaction.placeholder.utf8)

    func redacting(text: String) -> String {
        let scrubbed = scanner.replacing(in: text, with: Redaction.placeholder)
        return customRules.reduce(scrubbed) { text, rule in rule(text) }
    }

    func redacting(bytes: UnsafeBufferPointer<UInt8>) -> Data? {
        var changed = scanner.replacing(in: bytes, with: Self.placeholder)
        guard !customRules.isEmpty else { return changed }
        if let text = changed.map({ String(data: $0, encoding: .utf8) }) ?? String(bytes: bytes, encoding: .utf8) {
            let rewritten = customRules.reduce(text) { text, rule in rule(text) }
            if rewritten != text { changed = Data(rewritten.utf8) }
        }
        return changed
    }
}
