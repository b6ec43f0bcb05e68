import Foundation

// Servers echo credentials: an error body quoting the request's token, a debug endpoint
// returning its headers, a redirect URL carrying its key. What the name rules hide in a request
// is collected here, so a message about that request hides it wherever else it appears.
extension Redaction {
    /// The original values the name rules hide in a request or response: header values (and a
    /// bearer token without its scheme, cookie values without their names, the user and
    /// password of a Basic credential), the password of the URL's user info (and the Basic
    /// credential built from it), and query, fragment, form and JSON values.
    /// `package`: unmatched reports, cassettes (HTTPClientStubs) and `httpc` hide echoes of what
    /// they saw, as the client's errors do with `hidingEchoes(of:)`.
    package func hiddenValues(url: String?, headers: HTTPHeaders, body: Data?, contentType: String?) -> [String] {
        guard let body else { return hiddenValues(url: url, headers: headers, bodyBytes: nil, contentType: contentType) }
        return Self.withBuffer(body) { hiddenValues(url: url, headers: headers, bodyBytes: $0, contentType: contentType) }
    }

    /// ``hiddenValues(url:headers:body:contentType:)`` for a body read in place.
    private func hiddenValues(
        url: String?, headers: HTTPHeaders, bodyBytes body: UnsafeBufferPointer<UInt8>?, contentType: String?
    ) -> [String] {
        guard !nameRules.isEmpty else { return [] }
        var values: [String] = []
        for field in headers where hides(name: field.name) {
            values += Self.parts(ofCredential: field.value, isSetCookie: Self.normalized(field.name) == "setcookie")
        }
        if let url {
            values += Self.userInfoCredentials(ofURL: url)
            let parts = Self.parts(ofURL: url)
            for list in [parts.query, parts.fragment].compactMap({ $0 }) {
                values += hiddenParameterValues(in: String(list))
            }
        }
        if let buffer = body, !buffer.isEmpty {
            if Self.looksLikeJSON(buffer) {
                values += JSONRedactor(hides: hides(name:)).redact(buffer)?.hidden ?? []
            } else if let base = buffer.baseAddress, memchr(base, Int32(UInt8(ascii: "=")), buffer.count) != nil,
                Self.isForm(contentType) || memchr(base, 0x20, buffer.count) == nil,
                let text = String(bytes: buffer, encoding: .utf8)
            {
                // A form, or text that may be one (no spaces, so not prose), with a value to hide.
                values += hiddenParameterValues(in: text)
            }
        }
        return values.map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0 != Self.placeholder }
    }

    /// This redaction, also hiding `values` wherever a text repeats them: as they are,
    /// percent-encoded (as a server quotes a URL or a form) or escaped in a JSON string (as an
    /// error body quotes a token with a `/` or a `"`). Values shorter than four characters are
    /// left out: hiding `1` or `no` everywhere would destroy the text. (HTTPClientStubs finds the
    /// values it hides in every textual encoding, base64 and hex included.)
    func hidingEchoes(of values: some Sequence<String>) -> Redaction {
        var copy = self
        for value in values where value.count >= 4 && value != Self.placeholder {
            for spelling in Self.echoSpellings(of: value) { copy.echoes.add(spelling) }
        }
        return copy
    }

    /// `value` as a server may quote it: as it is, percent-encoded (`%2F`, and `+` for a space
    /// in a form), and inside a JSON string (`\/`, `\"`, `\u0001`).
    private static func echoSpellings(of value: String) -> Set<String> {
        var spellings: Set<String> = [value]
        if let encoded = value.addingPercentEncoding(withAllowedCharacters: unreserved) {
            spellings.insert(encoded)
            spellings.insert(encoded.replacingOccurrences(of: "%20", with: "+"))
            spellings.insert(encoded.lowercasedPercentEscapes)
        }
        var json = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": json += "\\\\"
            case "\"": json += "\\\""
            case "\n": json += "\\n"
            case "\r": json += "\\r"
            case "\t": json += "\\t"
            case _ where scalar.value < 0x20: json += String(format: "\\u%04x", scalar.value)
            default: json.unicodeScalars.append(scalar)
            }
        }
        spellings.insert(json)
        spellings.insert(json.replacingOccurrences(of: "/", with: "\\/"))
        return spellings
    }

    /// RFC 3986's unreserved characters: what percent-encoding leaves as it is.
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// A credential's value and the parts of it that may travel alone: each cookie's value, and
    /// the credential after a scheme (`Bearer ...`). A `Set-Cookie` line's attributes (`Path=/api`,
    /// `Domain=example.com`, `Expires=...`) are not secrets: hidden everywhere, they would take
    /// the recorded URL's path and host with them.
    private static func parts(ofCredential value: String, isSetCookie: Bool) -> [String] {
        var parts = [value]
        for (index, cookie) in Substring(value).splitScalars(";").enumerated() {
            let nameAndValue = cookie.splitScalars("=", maxSplits: 1)
            guard nameAndValue.count == 2 else { continue }
            if isSetCookie, index > 0, CookieRedaction.isAttribute(nameAndValue[0]) { continue }
            parts.append(String(nameAndValue[1]))
        }
        // A scheme is one token: `sid=abc; Path=/` has none.
        let atSpace = Substring(value).splitScalars(" ", maxSplits: 1)
        if atSpace.count == 2, !atSpace[0].unicodeScalars.contains(where: { $0 == "=" || $0 == ";" }) {
            let scheme = atSpace[0].lowercased()
            let credential = String(atSpace[1]).trimmingCharacters(in: .whitespaces)
            parts.append(credential)
            if scheme == "basic", let decoded = Data(base64Encoded: credential).flatMap({ String(data: $0, encoding: .utf8) }) {
                parts.append(decoded)
                if let password = Substring(decoded).afterScalar(":") { parts.append(String(password)) }
            }
        }
        return parts
    }

    /// The values of the `name=value` pairs whose names are hidden.
    private func hiddenParameterValues(in text: String) -> [String] {
        FormPair.pairs(in: text).filter { hides(parameter: $0.name) }.flatMap(\.values)
    }
}

extension String {
    /// The string with the hexadecimal digits of its percent escapes in lower case (`%2f`).
    fileprivate var lowercasedPercentEscapes: String {
        var result = ""
        var remaining = 0
        for character in self {
            if character == "%" {
                remaining = 2
                result.append(character)
            } else if remaining > 0 {
                remaining -= 1
                result += character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }
}

/// Values found where a text repeats them byte for byte, each replaced with the placeholder (the
/// longest where they overlap). A message about one request hides a handful of values in a
/// short text: a look-up by first byte is all the speed it needs.
struct EchoedValues: Sendable {
    /// The values by their first byte, longest first.
    private var byFirstByte: [[[UInt8]]] = []
    private var known: Set<String> = []

    mutating func add(_ value: String) {
        guard let first = value.utf8.first, known.insert(value).inserted else { return }
        if byFirstByte.isEmpty { byFirstByte = Array(repeating: [], count: 256) }
        byFirstByte[Int(first)].append(Array(value.utf8))
        byFirstByte[Int(first)].sort { $0.count > $1.count }
    }

    /// `bytes` with every value replaced, or `nil` when there is none.
    func replacing(in bytes: some Collection<UInt8>) -> Data? {
        guard !known.isEmpty else { return nil }
        return Redaction.withBuffer(bytes) { buffer -> Data? in
            let placeholder = Array(Redaction.placeholder.utf8)
            var output: Data?
            var copiedUpTo = 0
            var position = 0
            while position < buffer.count {
                let candidates = byFirstByte[Int(buffer[position])]
                guard let value = candidates.first(where: { Self.starts(buffer, at: position, with: $0) }) else {
                    position += 1
                    continue
                }
                if output == nil { output = Data(capacity: buffer.count) }
                output?.append(UnsafeBufferPointer(rebasing: buffer[copiedUpTo..<position]))
                output?.append(contentsOf: placeholder)
                position += value.count
                copiedUpTo = position
            }
            output?.append(UnsafeBufferPointer(rebasing: buffer[copiedUpTo...]))
            return output
        }
    }

    /// `text` with every value replaced.
    func replacing(in text: String) -> String {
        guard let replaced = replacing(in: text.utf8) else { return text }
        return String(decoding: replaced, as: UTF8.self)
    }

    private static func starts(_ buffer: UnsafeBufferPointer<UInt8>, at position: Int, with value: [UInt8]) -> Bool {
        buffer.count - position >= value.count && buffer[position..<(position + value.count)].elementsEqual(value)
    }
}
