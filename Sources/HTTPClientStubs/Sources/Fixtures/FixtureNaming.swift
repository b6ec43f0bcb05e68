import Foundation
import HTTPClient

/// The VOKMockData file-name convention: which names a request may be stored under, most
/// specific first (see README, "Fixture folders"). Users see the names a miss tried in
/// ``FixtureError/noFixture(folder:triedFileNames:)``.
package enum FixtureNaming {
    /// Candidate names without extension, in lookup order.
    ///
    /// `POST /foo/bar?baz=bat` with JSON body `{"abc":"def"}` gives
    /// `POST|-foo-bar?baz=bat|d3-abc3-defe`, `POST|-foo-bar?baz=bat|<sha256(body)>`,
    /// `POST|-foo-bar?<sha256(baz=bat)>|d3-abc3-defe`, `POST|-foo-bar?<sha256(baz=bat)>|<sha256(body)>`.
    package static func candidates(for request: RecordedRequest, wildcards: Bool = false) -> [String] {
        var path = request.path
        if path.count > 1, path.hasSuffix("/") { path.removeLast() }
        let base = "\(request.method.rawValue)|\(path)"

        let rawQuery = URLComponents(url: request.url, resolvingAgainstBaseURL: true)?.percentEncodedQuery
        let queries: [String]? = rawQuery.map { ["?" + $0, "?" + SHA256.hex($0)] }

        let bodies: [String]?
        if [HTTPMethod.post, .put, .patch].contains(request.method) {
            bodies = ([bodyString(of: request)].compactMap { $0 } + [request.bodyDigest]).map { "|" + $0 }
        } else {
            bodies = nil
        }

        var names: [String] = []
        switch (queries, bodies) {
        case (let queries?, let bodies?):
            names = queries.flatMap { query in bodies.map { base + query + $0 } }
            if wildcards {
                names += queries.map { base + $0 + "|*" } + bodies.map { base + "?*" + $0 } + [base + "?*|*"]
            }
        case (let queries?, nil):
            names = queries.map { base + $0 } + (wildcards ? [base + "?*"] : [])
        case (nil, let bodies?):
            names = bodies.map { base + $0 } + (wildcards ? [base + "|*"] : [])
        case (nil, nil):
            names = [base]
        }
        return names.map(fileSystemSafe).filter { $0.utf8.count <= maximumNameBytes }
    }

    /// The longest name, in bytes as file systems count them, leaving room for `.json` or
    /// `.http` within the usual 255.
    package static let maximumNameBytes = 250

    /// The body part from the body's content: the form text, or the bencoded JSON; `nil` for
    /// other bodies (and for JSON with `null`, which bencoding cannot express), and for a form
    /// too long to be part of a name.
    static func bodyString(of request: RecordedRequest) -> String? {
        let contentType = request.headers["Content-Type"]?.lowercased() ?? ""
        if contentType.hasPrefix("application/x-www-form-urlencoded") {
            return request.body.count <= maximumNameBytes ? request.text : nil
        }
        if contentType.hasPrefix("application/json"), let encoded = bencode(request.body, limit: maximumNameBytes) {
            return encoded.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)
        }
        return nil
    }

    /// Bencoding: dictionaries with keys sorted by byte order, `LEN:STR` strings, `i<n>e`
    /// integers (numbers truncated, booleans as 1 and 0), `l...e` lists; `nil` for text that is
    /// not JSON, JSON with `null` (which bencoding cannot express), and anything longer than
    /// `limit` bytes.
    ///
    /// LEN counts UTF-16 code units, not bytes: VOKBenkode writes an `NSString`'s `length`, so
    /// that is what existing fixture names contain (`"é"` is `1:é`). The two agree for ASCII.
    ///
    /// The text is bencoded as it is parsed: once an array is longer than `limit`, the rest of
    /// it is only checked, so a large body costs a scan, not a tree.
    static func bencode(_ json: Data, limit: Int = .max) -> String? {
        guard case .text(let text)? = try? JSONParser.parse(json, with: BencodeBuilder(limit: limit)) else { return nil }
        return text
    }

    /// `/` and `:` cannot appear in file names on every system: both become `-`.
    ///
    /// Replaced byte by byte, not `Character` by `Character`: a combining mark after the
    /// separator, or a prepended mark such as U+06DD before it, makes one grapheme of both, which
    /// would compare unequal to `"/"` and keep the separator in the name.
    static func fileSystemSafe(_ name: String) -> String {
        let slash = UInt8(ascii: "/")
        let colon = UInt8(ascii: ":")
        guard name.utf8.contains(where: { $0 == slash || $0 == colon }) else { return name }
        return String(decoding: name.utf8.map { $0 == slash || $0 == colon ? UInt8(ascii: "-") : $0 }, as: UTF8.self)
    }
}
