import Foundation
import HTTPClient

// The query, read from the URL's text by hand, one way for requests and stubs' targets alike
// (see `QueryKey`): `URLComponents` would parse the whole URL, and Foundation's percent
// decoding bridges through `NSString` on Linux and gives up on a whole part for one bad escape.
extension RecordedRequest {
    /// The query items of `url`, split as ``QueryKey`` splits a query (empty pairs skipped), each
    /// name and value percent-decoded to bytes and read as UTF-8; one whose bytes are not UTF-8
    /// is kept as written (`%FF`). For people and for ``queryItems``: conditions compare the
    /// bytes themselves.
    static func queryItems(in url: String) -> [URLQueryItem] {
        var url = url
        return url.withUTF8 { bytes in
            func text(_ range: Range<Int>) -> String {
                let part = bytes[range]
                // Only a part with a `%` changes when decoded.
                guard part.contains(UInt8(ascii: "%")) else {
                    return String(decoding: UnsafeBufferPointer(rebasing: part), as: UTF8.self)
                }
                var decoded: [UInt8] = []
                decoded.reserveCapacity(part.count)
                QueryKey.forEachDecodedByte(of: part) { decoded.append($0) }
                return String(bytes: decoded, encoding: .utf8)
                    ?? String(decoding: UnsafeBufferPointer(rebasing: part), as: UTF8.self)
            }
            var items: [URLQueryItem] = []
            QueryKey.forEachPair(in: bytes) { pair, equals, _ in
                items.append(
                    URLQueryItem(
                        name: text(pair.lowerBound..<(equals ?? pair.upperBound)),
                        value: equals.map { text(($0 + 1)..<pair.upperBound) }))
            }
            return items
        }
    }

    /// The query as the registry indexes it and an exact query condition compares it (see
    /// ``QueryKey/query(in:)``), built once; the query items are not made for it.
    var queryKey: String {
        capture.parsed(\.queryKey) { QueryKey.query(in: capture.urlString) }
    }

    /// The key of each pair of the query, in order (see ``QueryKey/pairs(in:)``), built once:
    /// what the conditions on some of the query's items compare, and what the index files
    /// their stubs by.
    var queryPairKeys: [String] {
        capture.parsed(\.queryPairKeys) { QueryKey.pairs(in: capture.urlString) }
    }
}
