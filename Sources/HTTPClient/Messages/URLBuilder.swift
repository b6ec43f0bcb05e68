import Foundation

/// Resolves request targets to URLs: joins paths onto a base URL without losing the base URL's
/// own path, and percent-encodes query items strictly.
///
/// Kept free of `URLComponents` setters that trap on bad input: everything assigned to a
/// `percentEncoded...` property is produced by ``percentEncode(_:allowing:)`` first.
enum URLBuilder {
    static func url(
        for target: HTTPClient.RequestTarget, query: [URLQueryItem], baseURL: URL?
    ) throws(HTTPClientError) -> URL {
        let url: URL
        switch target {
        case .url(let given):
            url = given
        case .path(let path):
            url = try resolve(path, against: baseURL)
        }
        return query.isEmpty ? url : try appending(query, to: url)
    }

    /// `https://h/api/v2` + `users` (or `/users`) = `https://h/api/v2/users`.
    static func resolve(_ path: String, against baseURL: URL?) throws(HTTPClientError) -> URL {
        if path.contains("://") {
            return try absoluteURL(path)
        }
        guard let baseURL else {
            throw .invalidURL(path, reason: "it is a relative path and the client has no base URL")
        }
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: true) else {
            throw .invalidURL(baseURL.absoluteString, reason: "the base URL cannot be split into components")
        }
        let (pathPart, queryPart) = splitQuery(path)
        var joined = components.percentEncodedPath
        while joined.hasSuffix("/") { joined.removeLast() }
        let relative = percentEncode(String(pathPart.drop { $0 == "/" }), allowing: isPathCharacter, keepingEscapes: true)
        joined += "/" + relative
        components.percentEncodedPath = joined
        if let queryPart {
            let encoded = percentEncode(String(queryPart), allowing: isQueryCharacter, keepingEscapes: true)
            components.percentEncodedQuery = [components.percentEncodedQuery, encoded]
                .compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "&")
        }
        guard let url = components.url else {
            throw .invalidURL(path, reason: "joining it to \(baseURL.absoluteString) gives no valid URL")
        }
        return url
    }

    static func absoluteURL(_ string: String) throws(HTTPClientError) -> URL {
        guard let url = URL(string: string) else {
            throw .invalidURL(string, reason: "it is not a well-formed URL")
        }
        guard let scheme = url.scheme, !scheme.isEmpty else {
            throw .invalidURL(string, reason: "it has no scheme")
        }
        if scheme == "http" || scheme == "https", (url.host ?? "").isEmpty {
            throw .invalidURL(string, reason: "it has no host")
        }
        return url
    }

    static func appending(_ query: [URLQueryItem], to url: URL) throws(HTTPClientError) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw .invalidURL(url.absoluteString, reason: "it cannot be split into components")
        }
        let added = query.map { item in
            let name = percentEncode(item.name, allowing: isUnreserved)
            guard let value = item.value else { return name }
            return name + "=" + percentEncode(value, allowing: isUnreserved)
        }.joined(separator: "&")
        let existing = components.percentEncodedQuery ?? ""
        components.percentEncodedQuery = existing.isEmpty ? added : existing + "&" + added
        guard let result = components.url else {
            throw .invalidURL(url.absoluteString, reason: "adding the query items gives no valid URL")
        }
        return result
    }

    private static func splitQuery(_ path: String) -> (Substring, Substring?) {
        guard let mark = path.firstIndex(of: "?") else { return (path[...], nil) }
        return (path[..<mark], path[path.index(after: mark)...])
    }

    // MARK: Percent-encoding

    /// Encodes every byte `allowing` rejects, and every `%`, except that with `keepingEscapes`
    /// valid `%XX` escapes in text the caller wrote as a URL part are kept (a stray `%`, as in
    /// `50%off`, is still encoded, so the result is always a valid URL part). Values (query
    /// items, form fields) never keep escapes: `%41` in a value is data, not `A`.
    static func percentEncode(_ string: String, allowing allowed: (UInt8) -> Bool, keepingEscapes: Bool = false) -> String {
        let bytes = Array(string.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if keepingEscapes, byte == UInt8(ascii: "%"), index + 2 < bytes.count, isHex(bytes[index + 1]), isHex(bytes[index + 2]) {
                output.append(contentsOf: bytes[index...index + 2])
                index += 3
                continue
            }
            if allowed(byte) && byte != UInt8(ascii: "%") {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func isHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    /// RFC 3986 unreserved characters: the only ones left bare in a query name or value, so
    /// `+`, `&`, `=` and `/` in values reach the server as data, not syntax.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x41...0x5A, 0x61...0x7A, 0x30...0x39: true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }

    /// pchar and `/` (RFC 3986 §3.3).
    static func isPathCharacter(_ byte: UInt8) -> Bool {
        if isUnreserved(byte) { return true }
        return "!$&'()*+,;=:@/".utf8.contains(byte)
    }

    /// pchar, `/` and `?` (RFC 3986 §3.4): a query the caller wrote by hand keeps its syntax.
    static func isQueryCharacter(_ byte: UInt8) -> Bool {
        isPathCharacter(byte) || byte == UInt8(ascii: "?")
    }
}
