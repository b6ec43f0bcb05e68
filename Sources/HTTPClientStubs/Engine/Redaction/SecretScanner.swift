import Foundation

/// Finds values that must not be written, in whatever encoding they travel, and replaces them.
///
/// A value is found when every one of its characters appears in one of the forms a URL, a
/// form, JSON or a header can give it: as is, percent-encoded byte by byte (either hex case,
/// any subset of bytes), `+` for a space, or JSON-escaped (`\/`, `\"`, `\\`, `\n`..., `\uXXXX`
/// including surrogate pairs). The base64 and base64url forms of the values given `withBase64`
/// are found at every alignment, so such a value inside a longer base64 text (a Basic
/// credential, a binary body written as base64) is found too.
///
/// Every form is a path in one trie of characters. At each position of the text the scanner
/// decodes the next character in each way the text allows and follows the trie, so the cost is
/// linear in the text and independent of how many values are looked for: a JSON body with ten
/// thousand hidden tokens costs what one token costs. Most positions stop at a table of
/// possible first bytes.
struct SecretScanner: Sendable {
    /// Edges of the trie, keyed by `node << 21 | scalar` (a scalar fits in 21 bits).
    private let edges: [UInt64: Int32]
    /// Whether a form ends at the node.
    private let isEnd: [Bool]
    /// For each byte, whether a form can start there: most positions stop here.
    private let canStart: [Bool]
    /// The root's child for each ASCII character (-1 for none): the first step, without hashing.
    private let rootASCII: [Int32]

    /// The shortest value looked for in base64: shorter ones would match random base64 text.
    private static let shortestBase64Core = 4

    /// - Parameters:
    ///   - values: Found in their textual encodings.
    ///   - withBase64: Found in their textual encodings and as base64 and base64url too.
    init(_ values: [String], withBase64: [String] = []) {
        var forms = Set(values.filter { !$0.isEmpty })
        for value in Set(withBase64) where !value.isEmpty {
            forms.insert(value)
            forms.formUnion(Self.base64Cores(of: Array(value.utf8)).filter { $0.count >= Self.shortestBase64Core })
        }
        var edges: [UInt64: Int32] = [:]
        var isEnd = [false]
        for form in forms {
            var node: Int32 = 0
            for scalar in form.unicodeScalars {
                let key = Self.key(node, scalar.value)
                if let child = edges[key] {
                    node = child
                } else {
                    node = Int32(isEnd.count)
                    edges[key] = node
                    isEnd.append(false)
                }
            }
            isEnd[Int(node)] = true
        }
        var canStart = [Bool](repeating: false, count: 256)
        for key in edges.keys where key >> 21 == 0 {
            guard let scalar = Unicode.Scalar(UInt32(key & 0x1F_FFFF)), let first = String(scalar).utf8.first else { continue }
            canStart[Int(first)] = true
        }
        // Encodings start with these; what they stand for decides the way into the trie.
        if !forms.isEmpty {
            canStart[Int(UInt8(ascii: "%"))] = true
            canStart[Int(UInt8(ascii: "\\"))] = true
            canStart[Int(UInt8(ascii: "+"))] = true
        }
        self.edges = edges
        self.isEnd = isEnd
        self.canStart = canStart
        rootASCII = (0..<128).map { edges[Self.key(0, UInt32($0))] ?? -1 }
    }

    var isEmpty: Bool { edges.isEmpty }

    private static func key(_ node: Int32, _ scalar: UInt32) -> UInt64 {
        UInt64(node) << 21 | UInt64(scalar)
    }

    /// Whether any value is in `bytes`, in any encoding. Contiguous bytes (`Data`, a `String`'s
    /// UTF-8) are read in place.
    func occurs(in bytes: some Collection<UInt8>) -> Bool {
        guard !isEmpty else { return false }
        return Self.withBuffer(bytes) { buffer in
            var workspace = Workspace()
            var position = 0
            while position < buffer.count {
                if longestMatch(in: buffer, at: position, &workspace) != nil { return true }
                position += 1
            }
            return false
        }
    }

    /// `bytes` with every occurrence replaced by `placeholder` (the longest form at each
    /// place), or `nil` when there is none: the caller keeps what it has, and nothing is copied.
    func replacing(in bytes: some Collection<UInt8>, with placeholder: [UInt8]) -> Data? {
        guard !isEmpty else { return nil }
        return Self.withBuffer(bytes) { buffer -> Data? in
            var workspace = Workspace()
            var output = Data()
            var copiedUpTo = 0
            var replaced = false
            var position = 0
            while position < buffer.count {
                if let end = longestMatch(in: buffer, at: position, &workspace) {
                    if !replaced { output.reserveCapacity(buffer.count) }
                    replaced = true
                    output.append(UnsafeBufferPointer(rebasing: buffer[copiedUpTo..<position]))
                    output.append(contentsOf: placeholder)
                    copiedUpTo = end
                    position = end
                } else {
                    position += 1
                }
            }
            guard replaced else { return nil }
            output.append(UnsafeBufferPointer(rebasing: buffer[copiedUpTo...]))
            return output
        }
    }

    /// `text` with every occurrence replaced by `placeholder`.
    func replacing(in text: String, with placeholder: String) -> String {
        guard let replaced = replacing(in: text.utf8, with: Array(placeholder.utf8)) else { return text }
        return String(decoding: replaced, as: UTF8.self)
    }

    /// Runs `body` on the bytes in place when they are contiguous, else on a copy.
    static func withBuffer<Result>(_ bytes: some Collection<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = bytes.withContiguousStorageIfAvailable(body) { return result }
        return Array(bytes).withUnsafeBufferPointer(body)
    }

    // MARK: Matching

    /// The trie nodes a match can have reached and where, reused from one candidate position
    /// to the next so that trying a position allocates nothing.
    private struct Workspace {
        var active: [(node: Int32, end: Int)] = []
        var next: [(node: Int32, end: Int)] = []
    }

    /// The end of the longest form starting at `start`, following every way each character
    /// can be written at once (a set of trie positions, never a backtracking search).
    private func longestMatch(in buffer: UnsafeBufferPointer<UInt8>, at start: Int, _ workspace: inout Workspace) -> Int? {
        guard canStart[Int(buffer[start])] else { return nil }
        var longest: Int?
        // Plain ASCII (not `%`, `\`, `+`) has one reading, itself: follow the trie byte by byte
        // without the general machinery, which takes over at the first byte that has more.
        var node: Int32 = 0
        var position = start
        while position < buffer.count {
            let byte = buffer[position]
            guard byte < 0x80, byte != UInt8(ascii: "%"), byte != UInt8(ascii: "\\"), byte != UInt8(ascii: "+") else { break }
            let found = node == 0 ? rootASCII[Int(byte)] : edges[Self.key(node, UInt32(byte))] ?? -1
            guard found >= 0 else { return longest }
            let child = found
            node = child
            position += 1
            if isEnd[Int(child)] { longest = position }
        }
        guard position < buffer.count else { return longest }
        workspace.active.removeAll(keepingCapacity: true)
        workspace.active.append((node, position))
        while !workspace.active.isEmpty {
            workspace.next.removeAll(keepingCapacity: true)
            for (node, position) in workspace.active where position < buffer.count {
                Self.characters(in: buffer, at: position) { scalar, end in
                    guard let child = edges[Self.key(node, scalar)] else { return }
                    if isEnd[Int(child)], end > longest ?? start { longest = end }
                    if !workspace.next.contains(where: { $0.node == child && $0.end == end }) { workspace.next.append((child, end)) }
                }
            }
            swap(&workspace.active, &workspace.next)
        }
        return longest
    }

    /// Calls `found` with each character the text can stand for at `position`, and where it
    /// ends: as is (each UTF-8 byte literal or `%HH`), `+` for a space, or a JSON escape.
    private static func characters(in buffer: UnsafeBufferPointer<UInt8>, at position: Int, _ found: (UInt32, Int) -> Void) {
        utf8Characters(in: buffer, at: position, found)
        let byte = buffer[position]
        if byte == UInt8(ascii: "+") { found(0x20, position + 1) }
        guard byte == UInt8(ascii: "\\"), position + 1 < buffer.count else { return }
        let escaped = buffer[position + 1]
        if let scalar = shortEscapes[escaped] { found(scalar, position + 2) }
        guard escaped == UInt8(ascii: "u"), let unit = hexUnit(buffer, at: position + 2) else { return }
        if (0xD800...0xDBFF).contains(unit) {
            if let low = lowSurrogate(buffer, at: position + 6) {
                found(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00), position + 12)
            }
        } else if !(0xDC00...0xDFFF).contains(unit) {
            found(UInt32(unit), position + 6)
        }
    }

    /// A UTF-8 character whose bytes are each written as is or as `%HH`.
    private static func utf8Characters(in buffer: UnsafeBufferPointer<UInt8>, at position: Int, _ found: (UInt32, Int) -> Void) {
        readings(of: buffer, at: position) { lead, afterLead in
            let length: Int
            let value: UInt32
            switch lead {
            case 0..<0x80:
                found(UInt32(lead), afterLead)
                return
            case 0xC2...0xDF: (length, value) = (2, UInt32(lead & 0x1F))
            case 0xE0...0xEF: (length, value) = (3, UInt32(lead & 0x0F))
            case 0xF0...0xF4: (length, value) = (4, UInt32(lead & 0x07))
            default: return
            }
            continuation(buffer, from: afterLead, remaining: length - 1, value: value, found)
        }
    }

    private static func continuation(
        _ buffer: UnsafeBufferPointer<UInt8>, from position: Int, remaining: Int, value: UInt32, _ found: (UInt32, Int) -> Void
    ) {
        guard remaining > 0 else {
            if value <= 0x10FFFF, !(0xD800...0xDFFF).contains(value) { found(value, position) }
            return
        }
        readings(of: buffer, at: position) { byte, end in
            guard byte & 0xC0 == 0x80 else { return }
            continuation(buffer, from: end, remaining: remaining - 1, value: value << 6 | UInt32(byte & 0x3F), found)
        }
    }

    /// Calls `reading` with the byte at `position` as is and, when it starts `%HH`, with the
    /// byte that stands for.
    private static func readings(of buffer: UnsafeBufferPointer<UInt8>, at position: Int, _ reading: (UInt8, Int) -> Void) {
        guard position < buffer.count else { return }
        let byte = buffer[position]
        reading(byte, position + 1)
        if byte == UInt8(ascii: "%"), let decoded = percentDecoded(buffer, at: position) { reading(decoded, position + 3) }
    }

    private static let shortEscapes: [UInt8: UInt32] = [
        UInt8(ascii: "/"): 0x2F, UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "n"): 0x0A,
        UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09, UInt8(ascii: "b"): 0x08, UInt8(ascii: "f"): 0x0C,
    ]

    private static func lowSurrogate(_ buffer: UnsafeBufferPointer<UInt8>, at position: Int) -> UInt16? {
        guard position + 1 < buffer.count, buffer[position] == UInt8(ascii: "\\"), buffer[position + 1] == UInt8(ascii: "u"),
            let unit = hexUnit(buffer, at: position + 2), (0xDC00...0xDFFF).contains(unit)
        else { return nil }
        return unit
    }

    /// The byte `%HH` at `position` stands for (either hex case).
    private static func percentDecoded(_ buffer: UnsafeBufferPointer<UInt8>, at position: Int) -> UInt8? {
        guard position + 2 < buffer.count, buffer[position] == UInt8(ascii: "%"),
            let high = hexValue(buffer[position + 1]), let low = hexValue(buffer[position + 2])
        else { return nil }
        return high << 4 | low
    }

    /// Four hex digits at `position`, as a UTF-16 code unit.
    private static func hexUnit(_ buffer: UnsafeBufferPointer<UInt8>, at position: Int) -> UInt16? {
        guard position + 3 < buffer.count else { return nil }
        var unit: UInt16 = 0
        for offset in 0..<4 {
            guard let digit = hexValue(buffer[position + offset]) else { return nil }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    // MARK: Base64

    /// The base64 and base64url characters that depend only on `bytes`, for each of the three
    /// positions the bytes can take in a 3-byte group: what any base64 text containing the
    /// bytes must contain, whatever comes before and after them.
    static func base64Cores(of bytes: [UInt8]) -> [String] {
        guard !bytes.isEmpty else { return [] }
        var cores: [String] = []
        for offset in 0..<3 {
            let encoded = Array((Data(repeating: 0, count: offset) + Data(bytes)).base64EncodedString().utf8)
            let first = (8 * offset + 5) / 6
            let last = (8 * (offset + bytes.count)) / 6
            guard first < last else { continue }
            let core = String(decoding: encoded[first..<last], as: UTF8.self)
            cores.append(core)
            cores.append(String(core.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 }))
        }
        return cores
    }
}
