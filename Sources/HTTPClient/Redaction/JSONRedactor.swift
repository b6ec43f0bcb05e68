import Foundation

/// Replaces the whole value of every JSON member whose name is hidden, whatever its type
/// (`{"password": ["x"]}`, `{"token": 123}`, `{"secret": {...}}`), with `"REDACTED"`.
///
/// It reads the text once, byte by byte, without building a tree: everything it does not
/// replace is kept exactly as written (spacing, key order, number spelling), it costs linear time
/// and no memory beyond the output, and text that is not quite JSON (truncated, or JSON Lines)
/// is still redacted wherever a member can be recognised.
struct JSONRedactor {
    let hides: (String) -> Bool

    /// The rewritten text and the values it hid (strings decoded, numbers as written), or `nil`
    /// when nothing was hidden.
    func redact(_ input: UnsafeBufferPointer<UInt8>) -> (output: Data, hidden: [String])? {
        var output = Data()
        var hiddenValues: [String] = []
        var copiedUpTo = 0
        var inObject: [Bool] = []
        var expectsKey = false
        // Member names repeat (an array of records): decide each distinct name once.
        var decisions: [String: Bool] = [:]
        var index = 0
        while index < input.count {
            switch input[index] {
            case UInt8(ascii: "{"):
                inObject.append(true)
                expectsKey = true
                index += 1
            case UInt8(ascii: "["):
                inObject.append(false)
                expectsKey = false
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = inObject.popLast()
                expectsKey = false
                index += 1
            case UInt8(ascii: ","):
                expectsKey = inObject.last == true
                index += 1
            case UInt8(ascii: "\""):
                let end = Self.endOfString(input, from: index)
                guard expectsKey else {
                    index = end
                    continue
                }
                expectsKey = false
                let name = Self.decodeString(input, index, end)
                var valueStart = Self.skipSpace(input, from: end)
                guard valueStart < input.count, input[valueStart] == UInt8(ascii: ":") else {
                    index = end
                    continue
                }
                valueStart = Self.skipSpace(input, from: valueStart + 1)
                let hidden =
                    decisions[name]
                    ?? {
                        let decision = hides(name)
                        decisions[name] = decision
                        return decision
                    }()
                guard valueStart < input.count, hidden else {
                    index = valueStart
                    continue
                }
                let valueEnd = Self.endOfValue(input, from: valueStart)
                hiddenValues += Self.leaves(input, valueStart, valueEnd)
                if output.isEmpty { output.reserveCapacity(input.count) }
                output.append(UnsafeBufferPointer(rebasing: input[copiedUpTo..<valueStart]))
                output.append(contentsOf: Self.placeholder)
                copiedUpTo = valueEnd
                index = valueEnd
            default:
                index += 1
            }
        }
        guard copiedUpTo > 0 else { return nil }
        output.append(UnsafeBufferPointer(rebasing: input[copiedUpTo...]))
        return (output, hiddenValues)
    }

    private static let placeholder = Array("\"\(Redaction.placeholder)\"".utf8)

    // MARK: Tokens

    private static func skipSpace(_ input: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        while index < input.count, isSpace(input[index]) { index += 1 }
        return index
    }

    /// The index after the closing quote of the string opening at `start` (or the end of input).
    private static func endOfString(_ input: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start + 1
        while index < input.count {
            switch input[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return input.count
    }

    /// The index after the value starting at `start`: a string, a nested object or array (its
    /// brackets counted, strings skipped), or a number or literal.
    private static func endOfValue(_ input: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        switch input[start] {
        case UInt8(ascii: "\""):
            return endOfString(input, from: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < input.count {
                switch input[index] {
                case UInt8(ascii: "\""):
                    index = endOfString(input, from: index)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default:
                    break
                }
                index += 1
            }
            return input.count
        default:
            var index = start
            while index < input.count, !Self.endsScalar(input[index]) { index += 1 }
            return index
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func endsScalar(_ byte: UInt8) -> Bool {
        isSpace(byte) || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")
    }

    /// The strings and numbers inside a hidden value (not its member names): what may also
    /// appear elsewhere.
    private static func leaves(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> [String] {
        var values: [String] = []
        var index = start
        while index < end {
            let byte = input[index]
            if byte == UInt8(ascii: "\"") {
                let stringEnd = min(endOfString(input, from: index), end)
                // Member names are structure, not values: hiding `expires` everywhere would be noise.
                let next = skipSpace(input, from: stringEnd)
                if next >= end || input[next] != UInt8(ascii: ":") { values.append(decodeString(input, index, stringEnd)) }
                index = stringEnd
            } else if byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                var numberEnd = index
                while numberEnd < end, !endsScalar(input[numberEnd]) { numberEnd += 1 }
                values.append(String(decoding: input[index..<numberEnd], as: UTF8.self))
                index = numberEnd
            } else {
                index += 1
            }
        }
        return values
    }

    /// The text of the string token `input[start..<end]` (quotes included), escapes decoded.
    /// Malformed escapes are kept as written.
    static func decodeString(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        let contentEnd = end > start + 1 && input[end - 1] == UInt8(ascii: "\"") ? end - 1 : end
        let content = UnsafeBufferPointer(rebasing: input[(start + 1)..<max(start + 1, contentEnd)])
        guard content.contains(UInt8(ascii: "\\")) else { return String(decoding: content, as: UTF8.self) }
        var units: [UInt16] = []
        var index = 0
        let text = Array(String(decoding: content, as: UTF8.self).utf16)
        while index < text.count {
            let unit = text[index]
            guard unit == 0x5C, index + 1 < text.count else {
                units.append(unit)
                index += 1
                continue
            }
            let escaped = text[index + 1]
            switch escaped {
            case 0x6E: units.append(0x0A)
            case 0x72: units.append(0x0D)
            case 0x74: units.append(0x09)
            case 0x62: units.append(0x08)
            case 0x66: units.append(0x0C)
            case 0x75 where index + 5 < text.count:
                if let value = UInt16(String(decoding: text[(index + 2)...(index + 5)], as: UTF16.self), radix: 16) {
                    units.append(value)
                    index += 6
                    continue
                }
                units.append(escaped)
            default: units.append(escaped)
            }
            index += 2
        }
        return String(decoding: units, as: UTF16.self)
    }
}
