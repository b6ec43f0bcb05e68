import Foundation

/// Hides the values of `Cookie` and `Set-Cookie` headers and keeps what is not secret: cookie
/// names and `Set-Cookie`'s attributes (`Path`, `Domain`, `Expires`...). A recorded
/// `Set-Cookie: sid=REDACTED; Path=/` still sets a cookie when it is replayed, where a value
/// hidden whole set none.
///
/// Anything it cannot read as a name and attributes is hidden whole. A `Set-Cookie` line may
/// hold several cookies folded with commas, and `Expires` dates contain commas too: after a
/// comma only a date's remainder is kept, every `name=value` there is a new cookie.
enum CookieRedaction {
    /// `Set-Cookie` attributes, whose values are not secret.
    private static let attributes: Set<String> = ["expires", "max-age", "domain", "path", "samesite", "priority"]
    /// `Set-Cookie` attributes without a value.
    private static let flags: Set<String> = ["secure", "httponly", "partitioned"]

    /// Whether `name` (before its `=`) is a `Set-Cookie` attribute whose value is not secret.
    static func isAttribute(_ name: Substring) -> Bool {
        attributes.contains(name.trimmingCharacters(in: .whitespaces).lowercased())
    }

    /// `Cookie: a=1; b=2` as `a=REDACTED; b=REDACTED`.
    static func cookie(_ value: String) -> String {
        value.split(separator: ";", omittingEmptySubsequences: false).map { pair in
            hidingValue(of: pair)
        }.joined(separator: ";")
    }

    /// `Set-Cookie: sid=abc; Path=/; HttpOnly` as `sid=REDACTED; Path=/; HttpOnly`.
    static func setCookie(_ value: String) -> String {
        var result = ""
        var segment = Substring()
        var separator: Character?  // what came before `segment`; nil at the start
        func flush() {
            result += redacted(segment, after: separator)
        }
        var rest = Substring(value)
        while let index = rest.firstIndex(where: { $0 == ";" || $0 == "," }) {
            segment = rest[..<index]
            flush()
            result.append(rest[index])
            separator = rest[index]
            rest = rest[rest.index(after: index)...]
        }
        segment = rest
        flush()
        return result
    }

    private static func redacted(_ segment: Substring, after separator: Character?) -> String {
        let trimmed = segment.trimmingCharacters(in: .whitespaces)
        if separator == ";" {
            let name = (trimmed.split(separator: "=", maxSplits: 1).first.map(String.init) ?? "").lowercased()
            if trimmed.contains("=") ? attributes.contains(name) : flags.contains(name) { return String(segment) }
        }
        if separator == ",", !trimmed.contains("="), isDateRemainder(trimmed) { return String(segment) }
        return hidingValue(of: segment)
    }

    /// `name=value` as `name=REDACTED` (spacing kept); anything else hidden whole.
    private static func hidingValue(of pair: Substring) -> String {
        guard let equals = pair.firstIndex(of: "=") else {
            return pair.trimmingCharacters(in: .whitespaces).isEmpty ? String(pair) : leadingSpace(of: pair) + Redaction.placeholder
        }
        let name = pair[..<equals]
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { return leadingSpace(of: pair) + Redaction.placeholder }
        return name + "=" + Redaction.placeholder
    }

    private static func leadingSpace(of text: Substring) -> String {
        String(text.prefix { $0 == " " })
    }

    /// What follows the comma of an `Expires` date: ` 21 Oct 2015 07:28:00 GMT`.
    private static func isDateRemainder(_ text: String) -> Bool {
        let words = text.split(separator: " ")
        guard words.count == 5 || words.count == 4, words.last == "GMT" else {
            // `21-Oct-2015 07:28:00 GMT`, the older form.
            return words.count == 3 && words.last == "GMT" && words[0].allSatisfy { $0.isNumber || $0.isLetter || $0 == "-" }
                && words[1].allSatisfy { $0.isNumber || $0 == ":" }
        }
        let time = words[words.count - 2]
        return words[0].allSatisfy(\.isNumber) && words[1].allSatisfy(\.isLetter) && words[2].allSatisfy(\.isNumber)
            && time.allSatisfy { $0.isNumber || $0 == ":" }
    }
}
