import HTTPClient

/// Where a URL's scheme, authority and host lie in its text, as byte offsets: found once, when
/// a request is captured, so the scheme and host conditions of every candidate stub compare
/// bytes in place (searching the text and slicing it per candidate cost more than the match).
struct URLParts: Sendable {
    /// The text before the first `:`, when no `/`, `?` or `#` comes before it; else empty.
    var scheme: Range<Int> = 0..<0
    /// After the first `://`, up to the next `/`, `?` or `#`, without user information (up to
    /// the last `@`); empty when there is no `://`.
    var authority: Range<Int> = 0..<0
    /// The authority up to its port: the first `:` after an IPv6 literal's `]` (or, without
    /// one, the first `:`) starts the port.
    var host: Range<Int> = 0..<0

    /// The parts of the URL whose UTF-8 text is `bytes`. The delimiters are ASCII, so byte
    /// offsets split the text cleanly.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        func isDelimiter(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
        }
        let count = bytes.count
        if let colon = bytes.firstIndex(where: { $0 == UInt8(ascii: ":") || isDelimiter($0) }), bytes[colon] == UInt8(ascii: ":") {
            scheme = 0..<colon
        }
        var marker = 0
        while marker + 2 < count,
            !(bytes[marker] == UInt8(ascii: ":") && bytes[marker + 1] == UInt8(ascii: "/") && bytes[marker + 2] == UInt8(ascii: "/"))
        {
            marker += 1
        }
        guard marker + 2 < count else { return }
        var start = marker + 3
        var end = start
        while end < count, !isDelimiter(bytes[end]) { end += 1 }
        if let at = bytes[start..<end].lastIndex(of: UInt8(ascii: "@")) { start = at + 1 }
        authority = start..<end
        let searchFrom = bytes[start..<end].lastIndex(of: UInt8(ascii: "]")) ?? start
        host = start..<(bytes[searchFrom..<end].firstIndex(of: UInt8(ascii: ":")) ?? end)
    }

    init() {}
}

/// One part of a request's URL (its scheme, authority or host), read in place from the URL's text.
struct URLPart: Sendable, CustomStringConvertible {
    /// The whole URL.
    let text: String
    /// Where the part lies in `text`'s UTF-8.
    let bytes: Range<Int>

    /// Whether the part equals `lowercased` (text already folded by `asciiLowercased`), ASCII
    /// letters compared case-insensitively.
    func caseInsensitiveEquals(asciiLowercased lowercased: String) -> Bool {
        let inPlace = text.utf8.withContiguousStorageIfAvailable { url in
            lowercased.utf8.withContiguousStorageIfAvailable { expected in
                asciiCaseInsensitiveEquals(UnsafeBufferPointer(rebasing: url[bytes]), asciiLowercased: expected)
            }
        }
        if let inPlace, let result = inPlace { return result }
        return substring.caseInsensitiveEquals(asciiLowercased: lowercased)
    }

    private var substring: Substring {
        let utf8 = text.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: bytes.lowerBound)
        return Substring(utf8[start..<utf8.index(start, offsetBy: bytes.count)])
    }

    /// The part as written.
    var description: String { String(substring) }
}
