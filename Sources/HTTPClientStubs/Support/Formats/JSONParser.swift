import Foundation

// Written here, not taken from Foundation: the package has no dependencies, and `JSONDecoder`
// cannot walk a body without building it (see ``JSONParser``).

/// Parses RFC 8259 JSON in one pass over the bytes, handing what it reads to a builder.
///
/// `JSONDecoder` decodes a `JSONValue` by trying each type in turn and catching the errors,
/// which reads about 5 MB a second; this reads the bytes once. Nesting is limited, so a body of
/// ten thousand `[` cannot exhaust the stack.
///
/// It lives with its users: the stubs build `JSONValue`s and fixture names with it, and walk a
/// body for containment (`JSONParser+Containment.swift`); the client never parses JSON by hand.
struct JSONParser<Builder: JSONBuilder> {
    typealias Failure = JSONSyntaxError

    static var maximumDepth: Int { 512 }

    // Not private: `JSONParser+Containment.swift` walks the same bytes.
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0
    private var builder: Builder

    init(_ bytes: UnsafeBufferPointer<UInt8>, builder: Builder, index: Int = 0, depth: Int = 0) {
        self.bytes = bytes
        self.builder = builder
        self.index = index
        self.depth = depth
    }

    /// Parses `data`: one value, surrounded by optional whitespace.
    static func parse(_ data: Data, with builder: Builder) throws(Failure) -> Builder.Value {
        let result: Result<Builder.Value, Failure> = data.withUnsafeBytes { raw in
            var parser = JSONParser(raw.bindMemory(to: UInt8.self), builder: builder)
            do throws(Failure) {
                parser.skipSpace()
                let value = try parser.value()
                parser.skipSpace()
                guard parser.index == parser.bytes.count else { throw parser.failure("unexpected text after the value") }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    // MARK: Values

    mutating func value() throws(Failure) -> Builder.Value {
        guard index < bytes.count else { throw failure("a value was expected") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return builder.string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return builder.bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return builder.bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return builder.null()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("a value was expected")
        }
    }

    private mutating func object() throws(Failure) -> Builder.Value {
        var members = builder.makeMembers()
        try readObject { parser, name throws(Failure) in
            let value = try parser.value()
            parser.builder.set(name, value, in: &members)
        }
        return builder.object(members)
    }

    private mutating func array() throws(Failure) -> Builder.Value {
        var items = builder.makeItems()
        var building = true
        try readArray { parser, _ throws(Failure) in
            if building {
                building = parser.builder.append(try parser.value(), to: &items)
            } else {
                try parser.check()
            }
        }
        return builder.array(items)
    }

    // MARK: Objects and arrays

    /// Reads the object at the current position: for each member, `member` is given its name,
    /// with the parser at its value, which `member` must read. Every way to read an object
    /// (building, checking, looking for members) goes through here.
    mutating func readObject(_ member: (inout JSONParser, String) throws(Failure) -> Void) throws(Failure) {
        try enter()
        defer { depth -= 1 }
        index += 1
        skipSpace()
        if peek(UInt8(ascii: "}")) {
            index += 1
            return
        }
        while true {
            skipSpace()
            guard peek(UInt8(ascii: "\"")) else { throw failure("a member name in quotes was expected") }
            let name = try string()
            skipSpace()
            guard peek(UInt8(ascii: ":")) else { throw failure("\":\" was expected after a member name") }
            index += 1
            skipSpace()
            try member(&self, name)
            skipSpace()
            if peek(UInt8(ascii: ",")) {
                index += 1
                continue
            }
            if peek(UInt8(ascii: "}")) {
                index += 1
                return
            }
            throw failure("\",\" or \"}\" was expected")
        }
    }

    /// Reads the array at the current position: `item` is given each item's position (0 for
    /// the first), with the parser at the item, which `item` must read.
    mutating func readArray(_ item: (inout JSONParser, Int) throws(Failure) -> Void) throws(Failure) {
        try enter()
        defer { depth -= 1 }
        index += 1
        skipSpace()
        if peek(UInt8(ascii: "]")) {
            index += 1
            return
        }
        var position = 0
        while true {
            skipSpace()
            try item(&self, position)
            position += 1
            skipSpace()
            if peek(UInt8(ascii: ",")) {
                index += 1
                continue
            }
            if peek(UInt8(ascii: "]")) {
                index += 1
                return
            }
            throw failure("\",\" or \"]\" was expected")
        }
    }

    /// Reads one value, checking it without building it.
    mutating func check() throws(Failure) {
        var checker = JSONParser<JSONChecker>(bytes, builder: JSONChecker(), index: index, depth: depth)
        _ = try checker.value()
        index = checker.index
    }

    mutating func enter() throws(Failure) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func literal(_ text: StaticString) throws(Failure) {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count,
            UnsafeBufferPointer(rebasing: bytes[index..<(index + count)]).elementsEqual(
                UnsafeBufferPointer(start: text.utf8Start, count: count))
        else { throw failure("a value was expected") }
        index += count
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`: an integer when it has no
    /// fraction or exponent and fits in 64 bits, else a double.
    private mutating func number() throws(Failure) -> Builder.Value {
        let start = index
        if peek(UInt8(ascii: "-")) { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a digit was expected") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw failure("a number cannot start with 0") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        var isInteger = true
        if peek(UInt8(ascii: ".")) {
            isInteger = false
            index += 1
            try digits()
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            isInteger = false
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            try digits()
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let integer = Int64(text) { return builder.integer(integer) }
        guard let double = Double(text), double.isFinite else { throw failure("the number \(text.prefix(40)) is out of range") }
        return builder.number(double)
    }

    private mutating func digits() throws(Failure) {
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a digit was expected") }
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    /// A string token: UTF-8 text with escapes (`\uXXXX` with surrogate pairs); control
    /// characters and lone surrogates are errors.
    mutating func string() throws(Failure) -> String {
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return try validated(text, at: start)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw failure("a control character must be escaped in a string") }
            index += 1
        }
        var scalars = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                let result: Result<String, Failure> = scalars.withUnsafeBufferPointer { text in
                    Result { () throws(Failure) in try validated(text, at: start) }
                }
                return try result.get()
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw failure("the string ends inside an escape") }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escaped)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"): scalars += Array(String(try unicodeEscape()).utf8)
                default: throw failure("\\\(Character(Unicode.Scalar(escaped))) is not a JSON escape")
                }
            default:
                if byte < 0x20 { throw failure("a control character must be escaped in a string") }
                scalars.append(byte)
                index += 1
            }
        }
        throw failure("the string has no closing quote")
    }

    /// The scalar of `XXXX` (after `\u`), reading the low half of a surrogate pair.
    private mutating func unicodeEscape() throws(Failure) -> Unicode.Scalar {
        let high = try hex4()
        if (0xD800...0xDBFF).contains(high) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw failure("a high surrogate must be followed by a low one")
            }
            index += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low), let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) else {
                throw failure("a high surrogate must be followed by a low one")
            }
            return scalar
        }
        guard let scalar = Unicode.Scalar(high) else { throw failure("a lone low surrogate is not a character") }
        return scalar
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("\\u needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("\\u needs four hex digits")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private func validated(_ text: UnsafeBufferPointer<UInt8>, at offset: Int) throws(Failure) -> String {
        // ASCII needs no validation, and most JSON text is ASCII.
        if text.allSatisfy({ $0 < 0x80 }) { return Builder.needsStrings ? String(decoding: text, as: UTF8.self) : "" }
        guard let string = String(bytes: text, encoding: .utf8) else {
            throw Failure(offset: offset, reason: "the string is not valid UTF-8")
        }
        return string
    }

    // MARK: Bytes

    mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    func failure(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }
}
