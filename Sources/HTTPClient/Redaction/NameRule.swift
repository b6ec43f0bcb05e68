import Foundation

extension Redaction {
    /// How a rule matches a name, after both are normalised (see `Redaction.normalized(_:)`).
    struct NameRule: Sendable, Hashable {
        enum Kind: Sendable, Hashable { case exact, suffix, fragment }
        let kind: Kind
        /// The rule's text, normalised.
        let text: String
        /// Whether the rule hides query, fragment and form parameters only, not headers or JSON
        /// members: for a name that is a credential in a URL and an ordinary value elsewhere.
        let isForParametersOnly: Bool
        private let bytes: [UInt8]

        private init(kind: Kind, text: String, isForParametersOnly: Bool = false) {
            self.kind = kind
            self.text = text
            self.isForParametersOnly = isForParametersOnly
            bytes = Array(text.utf8)
        }

        /// Hides exactly this name.
        static func name(_ name: String) -> NameRule { NameRule(kind: .exact, text: Redaction.normalized(name)) }
        /// Hides exactly this name as a query or fragment parameter or a form field only (`code`).
        static func parameter(_ name: String) -> NameRule {
            NameRule(kind: .exact, text: Redaction.normalized(name), isForParametersOnly: true)
        }
        /// Hides every name ending with `suffix` (`token` hides `accessToken`, `X-Auth-Token`).
        static func endingWith(_ suffix: String) -> NameRule { NameRule(kind: .suffix, text: Redaction.normalized(suffix)) }
        /// Hides every name containing `fragment` (`secret` hides `client_secret`, `X-Secret-Id`).
        static func containing(_ fragment: String) -> NameRule {
            NameRule(kind: .fragment, text: Redaction.normalized(fragment))
        }

        /// Compared as bytes, with the C library's `memchr` and `memcmp`: `String.contains` goes
        /// through Foundation and costs a microsecond, which JSON with many members pays for
        /// every member, and a generic byte loop takes seconds in a debug build on a name of
        /// megabytes (a spaceless upload read as a form).
        func matches(_ name: [UInt8]) -> Bool {
            guard name.count >= bytes.count else { return false }
            guard !bytes.isEmpty else { return kind != .exact || name.isEmpty }
            return name.withUnsafeBufferPointer { name in
                bytes.withUnsafeBufferPointer { rule in
                    guard let haystack = name.baseAddress, let needle = rule.baseAddress else { return false }
                    switch kind {
                    case .exact:
                        return name.count == rule.count && memcmp(haystack, needle, rule.count) == 0
                    case .suffix:
                        return memcmp(haystack + (name.count - rule.count), needle, rule.count) == 0
                    case .fragment:
                        var start = 0
                        let last = name.count - rule.count
                        while start <= last {
                            guard let found = memchr(haystack + start, Int32(needle[0]), last - start + 1) else { return false }
                            let offset = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - haystack
                            if memcmp(haystack + offset, needle, rule.count) == 0 { return true }
                            start = offset + 1
                        }
                        return false
                    }
                }
            }
        }
    }

    /// Whether values named `name` (a header or a JSON member name) are hidden.
    func hides(name: String) -> Bool {
        guard !nameRules.isEmpty else { return false }
        let normalized = Self.normalizedBytes(name)
        return nameRules.contains { !$0.isForParametersOnly && $0.matches(normalized) }
    }

    /// Whether values named `name` as a query or fragment parameter or a form field are hidden:
    /// every rule applies, those for parameters only too.
    func hides(parameter name: String) -> Bool {
        guard !nameRules.isEmpty else { return false }
        let normalized = Self.normalizedBytes(name)
        return nameRules.contains { $0.matches(normalized) }
    }

    /// A name with case, `-`, `_`, `.`, spaces and other punctuation removed:
    /// `X-Api-Key`, `x_api_key` and `xApiKey` are all `xapikey`.
    static func normalized(_ name: String) -> String {
        String(decoding: normalizedBytes(name), as: UTF8.self)
    }

    static func normalizedBytes(_ name: String) -> [UInt8] {
        var ascii: [UInt8] = []
        ascii.reserveCapacity(name.utf8.count)
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): ascii.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): ascii.append(byte | 0x20)
            case 0x80...: return Array(normalizedUnicode(name).utf8)
            default: break
            }
        }
        return ascii
    }

    private static func normalizedUnicode(_ name: String) -> String {
        let kept = name.lowercased().unicodeScalars.filter { $0.properties.isAlphabetic || $0.properties.numericType != nil }
        return String(String.UnicodeScalarView(kept))
    }
}
