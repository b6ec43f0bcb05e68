import Foundation

/// One `name=value` pair of an `application/x-www-form-urlencoded` text, as written and decoded
/// (`+` is a space). The one place forms are split: matchers and redaction both read them.
package struct FormPair: Sendable {
    /// The pair as written, for rewriting a form without disturbing the other pairs.
    package let raw: Substring
    package let name: String
    /// `nil` for a bare `name` with no `=`.
    package let value: String?
    /// The value percent-decoded only (a `+` kept), as it may also appear outside the form.
    package let percentDecodedValue: String?

    /// Every pair in order, empty ones included, so joining the `raw`s with `&` gives `text` back.
    package static func pairs(in text: String) -> [FormPair] {
        text.split(separator: "&", omittingEmptySubsequences: false).map { raw in
            let parts = raw.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count > 1 ? parts[1] : nil
            return FormPair(raw: raw, name: decode(parts[0]), value: value.map(decode),
                            percentDecodedValue: value.map { String($0).removingPercentEncoding ?? String($0) })
        }
    }

    private static func decode(_ part: Substring) -> String {
        let spaced = part.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// The value as decoded and as percent-decoded only, when they differ: both forms a
    /// credential can take elsewhere.
    package var values: [String] {
        guard let value else { return [] }
        return percentDecodedValue.map { $0 == value ? [value] : [value, $0] } ?? [value]
    }
}
