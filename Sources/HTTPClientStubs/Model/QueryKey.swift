// How query names and values are compared, one way for stubs' targets, query conditions, the
// index and requests alike: percent-decoded to bytes, never to text, so no decoding can fail and
// no Unicode rule can fold two queries a server tells apart (`é` precomposed and `e` with a
// combining accent are different bytes). A `%` not followed by two hex digits is kept as it is
// written; the escapes around it are still decoded. Hex case does not matter.
//
// The decoded bytes are written back in one spelling, the key: a byte that is `%`, `&`, `=`
// or not ASCII is written `%XX` (upper-case hex), every other byte as itself. A key is ASCII,
// so `String`'s equality, hashing and order are its bytes', and equal keys mean equal bytes.
enum QueryKey {
    /// The key of one pair: its name, and `=` and its value unless it is a bare name.
    static func pair(name: String, value: String?) -> String {
        var key: [UInt8] = []
        for byte in name.utf8 { appendEscaped(byte, to: &key) }
        if let value {
            key.append(UInt8(ascii: "="))
            for byte in value.utf8 { appendEscaped(byte, to: &key) }
        }
        return String(decoding: key, as: UTF8.self)
    }

    /// The key of a whole query from its pairs' keys: sorted by bytes and joined by `&`, so the
    /// order does not matter and repeated pairs count.
    static func query(pairs: [String]) -> String {
        pairs.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.joined(separator: "&")
    }

    /// A pair's key with a bare name read as an empty value (`flag` as `flag=`), for the
    /// conditions written with a dictionary, which cannot tell the two apart.
    static func withEmptyValue(_ pair: String) -> String {
        pair.utf8.contains(UInt8(ascii: "=")) ? pair : pair + "="
    }

    /// A pair's key split into its name's key and its value's (empty for a bare name). The
    /// name's `=` is escaped, so the first `=` is the one after the name.
    static func nameAndValue(of pair: String) -> (name: Substring, value: Substring) {
        guard let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) else { return (pair[...], "") }
        return (pair[..<equals], pair[pair.utf8.index(after: equals)...])
    }

    // MARK: Reading a URL's query

    /// The key of each pair of `url`'s query, in order, empty pairs skipped.
    static func pairs(in url: String) -> [String] {
        var url = url
        return url.withUTF8 { bytes in
            var keys: [String] = []
            var scratch: [UInt8] = []
            forEachPair(in: bytes) { pair, equals, isPlain in
                // A pair without a `%`, a second `=` or a non-ASCII byte is its own key.
                if isPlain {
                    keys.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[pair]), as: UTF8.self))
                    return
                }
                scratch.removeAll(keepingCapacity: true)
                appendDecoded(bytes[pair.lowerBound..<(equals ?? pair.upperBound)], to: &scratch)
                if let equals {
                    scratch.append(UInt8(ascii: "="))
                    appendDecoded(bytes[(equals + 1)..<pair.upperBound], to: &scratch)
                }
                keys.append(String(decoding: scratch, as: UTF8.self))
            }
            return keys
        }
    }

    /// The key of `url`'s whole query (empty when it has none): what a stub filed by its
    /// target's query is found under, and what its condition compares.
    ///
    /// Nearly every query is plain: every pair is its own key, and the key is the pairs
    /// themselves, sorted and joined by `&`, built from the URL's bytes without a string per
    /// pair. Any other query takes the general way.
    static func query(in url: String) -> String {
        var text = url
        let plain = text.withUTF8 { bytes -> String? in
            var pairs: [Range<Int>] = []
            var allPlain = true
            var length = 0
            forEachPair(in: bytes) { pair, _, isPlain in
                allPlain = allPlain && isPlain
                pairs.append(pair)
                length += pair.count + 1
            }
            guard allPlain else { return nil }
            pairs.sort { bytes[$0].lexicographicallyPrecedes(bytes[$1]) }
            var key: [UInt8] = []
            key.reserveCapacity(length)
            for (index, pair) in pairs.enumerated() {
                if index > 0 { key.append(UInt8(ascii: "&")) }
                key.append(contentsOf: bytes[pair])
            }
            return String(decoding: key, as: UTF8.self)
        }
        return plain ?? query(pairs: pairs(in: url))
    }

    /// Calls `body` with each non-empty pair of the query of `bytes` (a URL's text): its range,
    /// where its first `=` is, and whether it is plain (no `%`, no byte past ASCII, no second
    /// `=`). Split by byte, not by `Character`: a `&` or `=` followed by a combining mark is
    /// still the delimiter a server sees. `+` stays a plus (only a form body reads a space).
    static func forEachPair(in bytes: UnsafeBufferPointer<UInt8>, _ body: (Range<Int>, Int?, Bool) -> Void) {
        guard let query = queryBounds(in: bytes) else { return }
        var start = query.lowerBound
        while start < query.upperBound {
            var stop = start
            var equals: Int?
            var isPlain = true
            while stop < query.upperBound, bytes[stop] != UInt8(ascii: "&") {
                let byte = bytes[stop]
                if byte == UInt8(ascii: "=") {
                    if equals == nil { equals = stop } else { isPlain = false }
                } else if byte >= 0x80 || byte == UInt8(ascii: "%") {
                    isPlain = false
                }
                stop += 1
            }
            if stop > start { body(start..<stop, equals, isPlain) }
            start = stop + 1
        }
    }

    /// Where the query lies in `bytes`, a URL's text: after the first `?`, up to the fragment;
    /// `nil` when there is none. A `?` inside the fragment starts no query (a client sends the
    /// server neither).
    private static func queryBounds(in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard let mark = bytes.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }),
            bytes[mark] == UInt8(ascii: "?")
        else { return nil }
        return (mark + 1)..<(bytes[(mark + 1)...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex)
    }

    // MARK: Bytes

    /// Calls `body` with each byte `part` (a name or value as written) decodes to: `%` and two
    /// hex digits, in either case, is one byte; anything else, a malformed `%` included, is
    /// itself.
    static func forEachDecodedByte(of part: Slice<UnsafeBufferPointer<UInt8>>, _ body: (UInt8) -> Void) {
        var index = part.startIndex
        while index < part.endIndex {
            if part[index] == UInt8(ascii: "%"), index + 2 < part.endIndex,
                let high = hexValue(part[index + 1]), let low = hexValue(part[index + 2])
            {
                body(high << 4 | low)
                index += 3
            } else {
                body(part[index])
                index += 1
            }
        }
    }

    /// `part` (as written) decoded, then escaped into `key`.
    private static func appendDecoded(_ part: Slice<UnsafeBufferPointer<UInt8>>, to key: inout [UInt8]) {
        forEachDecodedByte(of: part) { appendEscaped($0, to: &key) }
    }

    /// `byte` as the key writes it.
    private static func appendEscaped(_ byte: UInt8, to key: inout [UInt8]) {
        guard byte >= 0x80 || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "=") else {
            key.append(byte)
            return
        }
        func digit(_ value: UInt8) -> UInt8 { value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10 }
        key.append(UInt8(ascii: "%"))
        key.append(digit(byte >> 4))
        key.append(digit(byte & 0x0F))
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
