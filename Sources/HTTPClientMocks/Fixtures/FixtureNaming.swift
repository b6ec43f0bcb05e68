import Foundation
import HTTPClient

/// The VOKMockData file-name convention: which names a request may be stored under, most
/// specific first (see README, "Fixture folders").
public enum FixtureNaming {
    /// Candidate names without extension, in lookup order.
    ///
    /// `POST /foo/bar?baz=bat` with JSON body `{"abc":"def"}` gives
    /// `POST|-foo-bar?baz=bat|d3-abc3-defe`, `POST|-foo-bar?baz=bat|<sha256(body)>`,
    /// `POST|-foo-bar?<sha256(baz=bat)>|d3-abc3-defe`, `POST|-foo-bar?<sha256(baz=bat)>|<sha256(body)>`.
    public static func candidates(for request: RecordedRequest, wildcards: Bool = false) -> [String] {
        var path = request.path
        if path.count > 1, path.hasSuffix("/") { path.removeLast() }
        let base = "\(request.method.rawValue)|\(path)"

        let rawQuery = URLComponents(url: request.url, resolvingAgainstBaseURL: true)?.percentEncodedQuery
        let queries: [String]? = rawQuery.map { ["?" + $0, "?" + SHA256.hex($0)] }

        let bodies: [String]?
        if [HTTPMethod.post, .put, .patch].contains(request.method) {
            bodies = ([bodyString(of: request)].compactMap { $0 } + [SHA256.hex(request.body)]).map { "|" + $0 }
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
        return names.filter { $0.count <= 250 }.map(fileSystemSafe)
    }

    /// The body part from the body's content: the form text, or the bencoded JSON; `nil` for
    /// other bodies (and for JSON with `null`, which bencoding cannot express).
    static func bodyString(of request: RecordedRequest) -> String? {
        let contentType = request.headers["Content-Type"]?.lowercased() ?? ""
        if contentType.hasPrefix("application/x-www-form-urlencoded") {
            return request.text
        }
        if contentType.hasPrefix("application/json"), let json = request.json, let encoded = bencode(json) {
            return encoded.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)
        }
        return nil
    }

    /// Bencoding: dictionaries with keys sorted by byte order, `LEN:STR` strings, `i<n>e`
    /// integers (numbers truncated, booleans as 1 and 0), `l...e` lists.
    ///
    /// LEN counts UTF-16 code units, not bytes: VOKBenkode writes an `NSString`'s `length`, so
    /// that is what existing fixture names contain (`"é"` is `1:é`). The two agree for ASCII.
    static func bencode(_ value: JSONValue) -> String? {
        switch value {
        case .null:
            return nil
        case .bool(let flag):
            return flag ? "i1e" : "i0e"
        case .integer(let number):
            return "i\(number)e"
        case .number(let number):
            guard number.isFinite, abs(number) < 9.2e18 else { return nil }
            return "i\(Int64(number))e"
        case .string(let text):
            return "\(text.utf16.count):\(text)"
        case .array(let items):
            var out = "l"
            for item in items {
                guard let encoded = bencode(item) else { return nil }
                out += encoded
            }
            return out + "e"
        case .object(let members):
            var out = "d"
            for key in members.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
                guard let value = members[key], let encoded = bencode(value) else { return nil }
                out += "\(key.utf16.count):\(key)" + encoded
            }
            return out + "e"
        }
    }

    /// `/` and `:` cannot appear in file names on every system: both become `-`.
    static func fileSystemSafe(_ name: String) -> String {
        String(name.map { $0 == "/" || $0 == ":" ? "-" : $0 })
    }
}
