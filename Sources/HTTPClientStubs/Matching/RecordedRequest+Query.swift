import Foundation
import HTTPClient

// The query, read from the URL's text by hand, one way for requests and stubs' targets alike:
// `URLComponents` would parse the whole URL, and Foundation's percent decoding bridges
// through `NSString` on Linux.
extension RecordedRequest {
    /// The query items of `url`, split by hand as ``StubTarget`` splits a target's query (empty
    /// pairs skipped, names and values percent-decoded): `URLComponents` would parse the whole URL.
    static func queryItems(in url: String) -> [URLQueryItem] {
        queryPairs(in: url).map { URLQueryItem(name: $0.name, value: $0.value) }
    }

    /// The query of `url` as decoded name-value pairs (a bare name has no value), in order:
    /// what ``queryItems(in:)`` wraps, and what the index key is built from without wrapping.
    static func queryPairs(in url: String) -> [(name: String, value: String?)] {
        var url = url
        // Scanned as contiguous UTF-8 bytes, and split by byte, not by Character: a `&` or `=`
        // followed by a combining mark is still the delimiter a server sees. `+` stays a plus
        // (only a form body reads it as a space).
        return url.withUTF8 { bytes in
            guard let query = queryBounds(in: bytes) else { return [] }
            func decoded(_ range: Range<Int>) -> String {
                let part = String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
                return percentDecoded(part)
            }
            var pairs: [(name: String, value: String?)] = []
            var start = query.lowerBound
            while start < query.upperBound {
                var stop = start
                var equals: Int?
                while stop < query.upperBound, bytes[stop] != UInt8(ascii: "&") {
                    if equals == nil, bytes[stop] == UInt8(ascii: "=") { equals = stop }
                    stop += 1
                }
                if stop > start {
                    pairs.append((decoded(start..<(equals ?? stop)), equals.map { decoded(($0 + 1)..<stop) }))
                }
                start = stop + 1
            }
            return pairs
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

    /// `part` percent-decoded (as it is when it cannot be decoded). Only a part with a `%` is
    /// handed to Foundation: its decoding goes through `NSString` on Linux, about 7k
    /// instructions a part, most of what a request to a stub filed by query cost.
    private static func percentDecoded(_ part: String) -> String {
        guard part.utf8.contains(UInt8(ascii: "%")) else { return part }
        return part.removingPercentEncoding ?? part
    }

    /// The index key of `url`'s query: `RequestMatcher.queryKey(pairs:)` of its pairs.
    ///
    /// Nearly every query is plain ASCII without a `%` and with at most one `=` in each pair:
    /// decoding and escaping then leave every pair as written, so the key is the pairs
    /// themselves, sorted and joined by `&`, and it is built from the URL's bytes without a
    /// string per name and value (for ASCII, `String`'s order is the bytes' order). Any other
    /// query takes the general way.
    static func queryKey(in url: String) -> String {
        var text = url
        let plain = text.withUTF8 { bytes -> String? in
            guard let query = queryBounds(in: bytes) else { return "" }
            var pairs: [Range<Int>] = []
            var start = query.lowerBound
            while start < query.upperBound {
                var stop = start
                var equalsSigns = 0
                while stop < query.upperBound, bytes[stop] != UInt8(ascii: "&") {
                    let byte = bytes[stop]
                    if byte >= 0x80 || byte == UInt8(ascii: "%") { return nil }
                    if byte == UInt8(ascii: "=") {
                        equalsSigns += 1
                        if equalsSigns > 1 { return nil }
                    }
                    stop += 1
                }
                if stop > start { pairs.append(start..<stop) }
                start = stop + 1
            }
            pairs.sort { bytes[$0].lexicographicallyPrecedes(bytes[$1]) }
            var key: [UInt8] = []
            key.reserveCapacity(query.count)
            for (index, pair) in pairs.enumerated() {
                if index > 0 { key.append(UInt8(ascii: "&")) }
                key.append(contentsOf: bytes[pair])
            }
            return String(decoding: key, as: UTF8.self)
        }
        return plain ?? RequestMatcher.queryKey(pairs: queryPairs(in: url))
    }
}
