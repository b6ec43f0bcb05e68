import Foundation

// The user info of a URL (`https://user:password@host/`) is a credential whatever its name:
// URLSession turns it into an `Authorization: Basic` header. Every text a redaction with name rules
// writes (URLs, header values, reports, messages) has it hidden, and the Basic credential built
// from it is hidden wherever a server echoes it.
extension Redaction {
    /// `text` with the user info of every `scheme://user:password@host` in it hidden: the password
    /// replaced by the placeholder, the user name kept; a user info without a password is
    /// replaced whole (it is often a token, as in `https://TOKEN@host`).
    static func hidingUserInfo(in text: String) -> String {
        let bytes = Array(text.utf8)
        // Most texts have no `@` at all: nothing to do.
        guard bytes.contains(UInt8(ascii: "@")) else { return text }
        let placeholder = Array(Redaction.placeholder.utf8)
        var output: [UInt8] = []
        var copied = 0
        for userInfo in userInfoRanges(in: bytes) {
            let colon = bytes[userInfo].firstIndex(of: UInt8(ascii: ":"))
            let hidden = colon.map { ($0 + 1)..<userInfo.upperBound } ?? userInfo
            // Already hidden (a text redacted twice) stays as it is.
            if bytes[hidden].elementsEqual(placeholder) { continue }
            output += bytes[copied..<hidden.lowerBound]
            output += placeholder
            copied = hidden.upperBound
        }
        guard copied > 0 else { return text }
        output += bytes[copied...]
        return String(decoding: output, as: UTF8.self)
    }

    /// This redaction, also hiding the credentials of `url`'s user info wherever they appear (a
    /// server's echo of the URL in a body, the password repeated in the query); itself when the URL
    /// has none or there are no name rules.
    func hidingCredentials(ofURL url: String) -> Redaction {
        guard !nameRules.isEmpty else { return self }
        let credentials = Self.userInfoCredentials(ofURL: url)
        return credentials.isEmpty ? self : hidingEchoes(of: credentials)
    }

    /// The credentials the user info of `url` carries, in every form they travel in: the password
    /// (or the lone user name), as written and percent-decoded, and the Basic credential
    /// URLSession sends for it (base64 of `user:password`). `user:password` itself is left out: the
    /// password inside it is hidden anyway, and hiding the pair would hide the user name in the
    /// URL too, which then differs from the same URL redacted without these values (a cassette
    /// replays by comparing the two).
    static func userInfoCredentials(ofURL url: String) -> [String] {
        let bytes = Array(url.utf8)
        guard let userInfo = userInfoRanges(in: bytes).first else { return [] }
        let written = String(decoding: bytes[userInfo], as: UTF8.self)
        let parts = Substring(written).splitScalars(":", maxSplits: 1).map(String.init)
        let user = parts[0].removingPercentEncoding ?? parts[0]
        let password = parts.count == 2 ? (parts[1].removingPercentEncoding ?? parts[1]) : nil
        let pair = "\(user):\(password ?? "")"
        var credentials = [Data(pair.utf8).base64EncodedString()]
        if parts.count == 2 {
            credentials += [parts[1], password ?? parts[1]]
        } else {
            credentials += [parts[0], user]
        }
        return credentials.filter { !$0.isEmpty }
    }

    /// The ranges of the user info (between `://` and the last `@` of the authority) of every URL
    /// written in `bytes`. The authority ends at `/`, `?`, `#`, or a byte no URL holds
    /// (whitespace, `"`, `<`, `>`, ...); trailing text it takes in (`(http://u:p@h)`) moves no
    /// `@`, so the user info found is the same.
    private static func userInfoRanges(in bytes: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var index = 0
        while index + 3 <= bytes.count {
            guard bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/") else {
                index += 1
                continue
            }
            let start = index + 3
            var end = start
            var lastAt: Int?
            while end < bytes.count, !endsAuthority(bytes[end]) {
                if bytes[end] == UInt8(ascii: "@") { lastAt = end }
                end += 1
            }
            if let lastAt, lastAt > start { ranges.append(start..<lastAt) }
            // On from just after this `://`, not from the authority's end: the `:` of another
            // `://` may end it (`a://b@http://user:password@host`). Every `@` of this authority
            // comes before that `:`, so the ranges stay apart and in order.
            index = start
        }
        return ranges
    }

    private static func endsAuthority(_ byte: UInt8) -> Bool {
        switch byte {
        // `'`, `(` and `)` may stand in a user info (RFC 3986's sub-delims): they do not end it.
        case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"),
            UInt8(ascii: "\\"), UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "|"), 0x00...0x20, 0x7F:
            true
        default:
            false
        }
    }
}
