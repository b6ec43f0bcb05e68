import Foundation
import HTTPClient
import HTTPClientStubs

extension Targets {
    /// Redaction: a registered secret, written into arbitrary text in one of the encodings a
    /// value can travel in, never survives in that encoding, in a body, a header or a URL.
    ///
    /// Input: an encoding selector, the secret's length, the secret, then the text around it
    /// (split in two at its middle). The check is independent of the scanner it tests: it
    /// encodes the secret itself and looks for that text in the output.
    static func redaction(_ data: Data) {
        let bytes = Array(data)
        guard bytes.count >= 2 else { return }
        let selector = Int(bytes[0])
        let length = Int(bytes[1]) % 48 + 4
        guard bytes.count >= 2 + length else { return }
        let secret = String(decoding: bytes[2..<(2 + length)], as: UTF8.self)
        let around = bytes[(2 + length)...]
        let before = Array(around.prefix(around.count / 2))
        let after = Array(around.dropFirst(around.count / 2))
        // A secret the placeholder itself spells, or with a NUL (the check's separator), cannot be judged.
        guard !secret.contains("\0"), !Redaction.placeholder.contains(secret), secret.unicodeScalars.count >= 4 else { return }

        let redaction = Redaction.none.secret(secret)
        let encoded = encodings(of: secret, selector: selector)
        let text = Data(before + Array(encoded.written.utf8) + after)

        // Whatever redaction did, none of these forms may be left outside the placeholders.
        // Compared as bytes: decoding invalid UTF-8 would make up characters that were never there.
        func check(_ output: [UInt8], _ place: String) {
            let separated = replacing(Array(Redaction.placeholder.utf8), with: [0], in: output)
            for form in encoded.forbidden where contains(Array(form.utf8), in: separated) {
                fail(
                    "the secret \(secret.debugDescription) survived as \(form.debugDescription) in the \(place): "
                        + String(decoding: output.prefix(400), as: UTF8.self).debugDescription)
            }
        }
        check(Array(redaction.redacted(body: text, contentType: nil)), "body")
        check(Array(redaction.redacted(body: text, contentType: "application/x-www-form-urlencoded")), "form")
        // Headers and URLs are text: what they see is the text's UTF-8.
        let line = String(decoding: text, as: UTF8.self)
        let lineRedaction = Redaction.none.secret(secret)
        check(Array((lineRedaction.redacted(["X-Echo": line])["X-Echo"] ?? "").utf8), "header")
        check(Array(lineRedaction.redacted(url: "https://h/a?q=" + line).utf8), "URL")
        // A password in a URL's user info is hidden by the standard rules, wherever the URL stands.
        let password = secret.addingPercentEncoding(withAllowedCharacters: .urlPasswordAllowed) ?? ""
        // Percent-encoded, it holds no space, `/`, `:` or `@`: it can only be found in its own place,
        // around it, or in `http`.
        if password != "http", !contains(Array(password.utf8), in: before + after) {
            let written =
                String(decoding: before, as: UTF8.self) + " http://u:\(password)@h/ "
                + String(decoding: after, as: UTF8.self)
            let redacted = Array(Redaction.standard.redacted(text: written).utf8)
            let separated = replacing(Array(Redaction.placeholder.utf8), with: [0], in: redacted)
            if contains(Array(password.utf8), in: separated) {
                fail("the password \(password.debugDescription) survived in \(written.prefix(400).debugDescription)")
            }
        }
        // Cookie headers keep names and attributes only: the first cookie's value never
        // survives, whatever follows it (unless the rest repeats it, as an attribute may).
        let cookieValue = String(secret.filter { $0 != ";" && $0 != "," && $0 != "=" && !$0.isWhitespace && $0 != "\0" })
        if cookieValue.unicodeScalars.count >= 4, !Redaction.placeholder.contains(cookieValue), !line.contains(cookieValue) {
            for header in ["Set-Cookie", "Cookie"] {
                let shown = Redaction.standard.redacted([header: "c=\(cookieValue); " + line])[header] ?? ""
                if shown.contains(cookieValue) {
                    fail("the \(header) value \(cookieValue.debugDescription) survived in \(shown.prefix(400).debugDescription)")
                }
            }
        }
        // And the standard rules on arbitrary text never crash (JSON, forms, URLs).
        _ = Redaction.standard.redacted(body: data, contentType: "application/json")
        _ = Redaction.standard.redacted(url: String(decoding: data, as: UTF8.self))
        // An error's description hides the credentials of the request it was sent with.
        var request = URLRequest(url: URL(fileURLWithPath: "/"))
        request.setValue(line, forHTTPHeaderField: "Authorization")
        request.httpBody = data
        _ = HTTPClientError.unacceptableStatus(HTTPClient.Response(statusCode: 500, body: data, request: request)).description
    }

    private static func contains(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return needle.isEmpty }
        return (0...(haystack.count - needle.count)).contains { start in haystack[start..<(start + needle.count)].elementsEqual(needle) }
    }

    private static func replacing(_ needle: [UInt8], with replacement: [UInt8], in haystack: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var index = 0
        while index < haystack.count {
            if index + needle.count <= haystack.count, haystack[index..<(index + needle.count)].elementsEqual(needle) {
                output += replacement
                index += needle.count
            } else {
                output.append(haystack[index])
                index += 1
            }
        }
        return output
    }

    /// The secret as written into the text, and the forms of it that must not be in the output.
    private static func encodings(of secret: String, selector: Int) -> (written: String, forbidden: [String]) {
        let bytes = Array(secret.utf8)
        let hex = { (byte: UInt8, upper: Bool) in String(format: upper ? "%%%02X" : "%%%02x", byte) }
        switch selector % 9 {
        case 0:
            return (secret, [secret])
        case 1:
            let form = bytes.map { hex($0, true) }.joined()
            return (form, [form])
        case 2:
            let form = bytes.map { hex($0, false) }.joined()
            return (form, [form])
        case 3:
            let form = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? secret
            return (form, [form])
        case 4:
            let form = secret.replacingOccurrences(of: " ", with: "+")
            return (form, [form])
        case 5:
            let encoder = JSONEncoder()
            let quoted = (try? encoder.encode(secret)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
            // The quotes dropped as bytes: as Characters, a leading combining mark would go with
            // the opening quote (a harness bug the fuzzer found).
            let form = String(decoding: Array(quoted.utf8).dropFirst().dropLast(), as: UTF8.self)
            return (form, [form])
        case 6:
            let form = secret.utf16.map { String(format: "\\u%04x", $0) }.joined()
            return (form, [form])
        default:
            // Base64 (or base64url) of the secret inside other bytes, at every alignment.
            let offset = selector % 3
            let padded = Data(repeating: 0x41, count: offset) + Data(bytes) + Data("tail".utf8)
            var written = padded.base64EncodedString()
            let first = (8 * offset + 5) / 6
            let last = (8 * (offset + bytes.count)) / 6
            var core = String(Array(written)[first..<last])
            if selector % 9 == 8 {
                written = written.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                core = core.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            }
            return (written, core.count >= 4 ? [core] : [])
        }
    }
}
