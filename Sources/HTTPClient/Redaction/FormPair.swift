import Foundation

/// One `name=value` pair of an `application/x-www-form-urlencoded` text, as written and decoded
/// (`+` is a space). The one place forms are split: matchers and redaction both read them.
struct FormPair: Sendable {
    /// The pair as written, for rewriting a form without disturbing the other pairs.
    let raw: Substring
    let name: String
    /// The value as written; `nil` for a bare `name` with no `=`. Decoded only when asked for:
    /// redaction asks for the values of hidden names only, and a form of megabytes is mostly
    /// values.
    private let rawValue: Substring?

    /// Whether the pair has a value (`name=`, `name=value`), not a bare `name`.
    var hasValue: Bool { rawValue != nil }

    /// The value decoded (`+` is a space); `nil` for a bare `name` with no `=`.
    var value: String? { rawValue.map(Self.decode) }

    /// The value percent-decoded only (a `+` kept), as it may also appear outside the form.
    var percentDecodedValue: String? { rawValue.map { String($0).removingPercentEncoding ?? String($0) } }

    /// Every pair in order, empty ones included, so joining the `raw`s with `&` gives `text` back.
    static func pairs(in text: String) -> [FormPair] {
        Substring(text).splitScalars("&").map { raw in
            let parts = raw.splitScalars("=", maxSplits: 1)
            return FormPair(raw: raw, name: decode(parts[0]), rawValue: parts.count > 1 ? parts[1] : nil)
        }
    }

    private static func decode(_ part: Substring) -> String {
        let spaced = part.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// The value as decoded and as percent-decoded only, when they differ: both forms a
    /// credential can take elsewhere.
    var values: [String] {
        guard let value else { return [] }
        return percentDecodedValue.map { $0 == value ? [value] : [value, $0] } ?? [value]
    }
}

extension URLQueryItem {
    /// The fields of an `application/x-www-form-urlencoded` text in order, repeated names kept
    /// and empty pairs (`a=1&&b=2`) skipped, split and decoded as redaction reads them.
    /// `package`: request matchers (HTTPClientStubs) read forms with the same splitting.
    package static func formFields(in text: String) -> [URLQueryItem] {
        FormPair.pairs(in: text).filter { !$0.raw.isEmpty }.map { URLQueryItem(name: $0.name, value: $0.value) }
    }
}

extension Substring {
    /// The parts between every `separator`, split by Unicode scalar, empty parts kept. Splitting
    /// by `Character` would miss a delimiter that a combining mark follows (`=\u{301}`: one
    /// Character), and a value written right after it would escape redaction.
    func splitScalars(_ separator: Unicode.Scalar, maxSplits: Int = .max) -> [Substring] {
        // An ASCII separator is never a byte of another scalar's UTF-8: found with memchr, as a
        // form of megabytes is split in a moment in a debug build too.
        if separator.isASCII, let parts = splitASCII(UInt8(separator.value), maxSplits: maxSplits) { return parts }
        var parts: [Substring] = []
        var start = startIndex
        var index = startIndex
        while index < endIndex {
            let next = unicodeScalars.index(after: index)
            if unicodeScalars[index] == separator, parts.count < maxSplits {
                parts.append(self[start..<index])
                start = next
            }
            index = next
        }
        parts.append(self[start..<endIndex])
        return parts
    }

    /// The part after the first `separator` (by Unicode scalar), or `nil` when there is none.
    func afterScalar(_ separator: Unicode.Scalar) -> Substring? {
        let parts = splitScalars(separator, maxSplits: 1)
        return parts.count == 2 ? parts[1] : nil
    }

    /// ``splitScalars(_:maxSplits:)`` for an ASCII separator, by byte; `nil` when the text is
    /// not stored as contiguous UTF-8.
    private func splitASCII(_ separator: UInt8, maxSplits: Int) -> [Substring]? {
        utf8.withContiguousStorageIfAvailable { bytes -> [Substring] in
            var parts: [Substring] = []
            guard let base = bytes.baseAddress else { return [self] }
            var start = 0
            while parts.count < maxSplits, start <= bytes.count,
                let found = memchr(base + start, Int32(separator), bytes.count - start)
            {
                let offset = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
                parts.append(self[utf8.index(startIndex, offsetBy: start)..<utf8.index(startIndex, offsetBy: offset)])
                start = offset + 1
            }
            parts.append(self[utf8.index(startIndex, offsetBy: start)..<endIndex])
            return parts
        }
    }
}
