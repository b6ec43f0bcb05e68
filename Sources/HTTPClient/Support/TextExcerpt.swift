import Foundation

/// The start of a body as text, for messages: at most `limit` bytes, cut at a character
/// boundary (a cut inside a multi-byte UTF-8 character is not mistaken for binary data).
/// `package`: unmatched reports and matchers (HTTPClientStubs) quote bodies the same way.
package struct TextExcerpt: Sendable {
    /// The excerpt.
    /// `package`: reports and matchers (HTTPClientStubs) quote it.
    package let text: String
    /// Whether the body goes on after the excerpt.
    /// `package`: reports and matchers (HTTPClientStubs) say when they cut a body.
    package let isTruncated: Bool

    /// `nil` when the body is not UTF-8 text.
    /// `package`: reports and matchers (HTTPClientStubs) make their excerpts.
    package init?(_ data: Data, limit: Int) {
        let prefix = data.prefix(limit)
        isTruncated = data.count > prefix.count
        // A UTF-8 character is at most 4 bytes: backing off up to 3 finds its start.
        for cut in 0...min(3, isTruncated ? prefix.count : 0) {
            if let text = String(data: prefix.dropLast(cut), encoding: .utf8) {
                self.text = text
                return
            }
        }
        return nil
    }
}
