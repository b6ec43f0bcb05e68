import Foundation

/// Finds values that must not be written, in whatever encoding they travel, and replaces them.
///
/// A value is found when every one of its characters appears in one of the forms a URL, a
/// form, JSON or a header can give it: as is, percent-encoded byte by byte (either hex case,
/// any subset of bytes), `+` for a space, or JSON-escaped (`\/`, `\"`, `\\`, `\n`..., `\uXXXX`
/// including surrogate pairs). Its base64 and base64url forms are found at every alignment, so a
/// value inside a longer base64 text (a Basic credential, a binary body written as base64) is
/// found too. The scan is linear in the input: a table of possible first bytes rejects most
/// positions at once, and each candidate is matched by following every encoding side by side
/// (no backtracking), so no input makes it slow.
package struct SecretScanner: Sendable {
    /// One form to look for: a value or one of its base64 cores.
    private struct Needle: Sendable {
        /// The UTF-8 bytes of each character.
        let characters: [[UInt8]]
        let scalars: [Unicode.Scalar]
        /// All its bytes, for the common case of a match as is.
        let bytes: [UInt8]
        /// Where its first byte that starts an encoding (`%`, `\`, `+`) is (its length when none).
        let firstEncodingByte: Int
    }

    private let needles: [Needle]
    /// For each first byte, the needles that can start with it.
    private let startingWith: [[Int]]
    /// For each byte, whether any needle can start with it: most positions stop here.
    private let canStart: [Bool]

    /// The shortest value looked for in base64: shorter ones would match random base64 text.
    private static let shortestBase64Core = 4

    init(_ values: [String]) {
        var forms: [String] = []
        for value in Set(values) where !value.isEmpty {
            forms.append(value)
            forms += Self.base64Cores(of: Array(value.utf8)).filter { $0.count >= Self.shortestBase64Core }
        }
        needles = Set(forms).sorted { $0.utf8.count > $1.utf8.count }.map { form in
            let bytes = Array(form.utf8)
            let firstEncodingByte: Int = bytes.firstIndex(where: Self.startsEncoding) ?? bytes.count
            return Needle(characters: form.unicodeScalars.map { Array(String($0).utf8) }, scalars: Array(form.unicodeScalars),
                          bytes: bytes, firstEncodingByte: firstEncodingByte)
        }
        var table = [[Int]](repeating: [], count: 256)
        for (index, needle) in needles.enumerated() {
            guard let first = needle.bytes.first else { continue }
            table[Int(first)].append(index)
        }
        startingWith = table
        var canStart = table.map { !$0.isEmpty }
        // Encodings start with these; what they stand for decides which needles to try.
        if !needles.isEmpty {
            canStart[Int(UInt8(ascii: "%"))] = true
            canStart[Int(UInt8(ascii: "\\"))] = true
            canStart[Int(UInt8(ascii: "+"))] = canStart[Int(UInt8(ascii: "+"))] || !table[0x20].isEmpty
        }
        self.canStart = canStart
    }

    private static func startsEncoding(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "%") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "+")
    }

    var isEmpty: Bool { needles.isEmpty }

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
    func replacing(in bytes: some Collection<UInt8>, with placeholder: [UInt8]) -> [UInt8]? {
        guard !isEmpty else { return nil }
        return Self.withBuffer(bytes) { buffer -> [UInt8]? in
            var workspace = Workspace()
            var output: [UInt8] = []
            var copiedUpTo = 0
            var replaced = false
            var position = 0
            while position < buffer.count {
                if let end = longestMatch(in: buffer, at: position, &workspace) {
                    if !replaced { output.reserveCapacity(buffer.count) }
                    replaced = true
                    output.append(contentsOf: buffer[copiedUpTo..<position])
                    output.append(contentsOf: placeholder)
                    copiedUpTo = end
                    position = end
                } else {
                    position += 1
                }
            }
            guard replaced else { return nil }
            output.append(contentsOf: buffer[copiedUpTo...])
            return output
        }
    }

    /// `text` with every occurrence replaced by `placeholder`.
    func replacing(in text: String, with placeholder: String) -> String {
        guard let replaced = replacing(in: text.utf8, with: Array(placeholder.utf8)) else { return text }
        return String(decoding: replaced, as: UTF8.self)
    }

    /// Runs `body` on the bytes in place when they are contiguous, else on a copy.
    package static func withBuffer<Result>(_ bytes: some Collection<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = bytes.withContiguousStorageIfAvailable(body) { return result }
        return Array(bytes).withUnsafeBufferPointer(body)
    }

    // MARK: Matching

    /// The positions a match can have reached, reused from one candidate to the next so that
    /// trying a position allocates nothing.
    private struct Workspace {
        var positions: [Int] = []
        var next: [Int] = []
    }

    private func longestMatch(in buffer: UnsafeBufferPointer<UInt8>, at position: Int, _ workspace: inout Workspace) -> Int? {
        let byte = buffer[position]
        guard canStart[Int(byte)] else { return nil }
        for index in startingWith[Int(byte)] {
            if let end = match(needles[index], in: buffer, at: position, &workspace) { return end }
        }
        // The needles whose first byte an encoding here stands for.
        guard let decoded = Self.firstByteEncoded(in: buffer, at: position), decoded != byte else { return nil }
        for index in startingWith[Int(decoded)] {
            if let end = match(needles[index], in: buffer, at: position, &workspace) { return end }
        }
        return nil
    }

    /// The first UTF-8 byte of the character an encoding at `position` stands for: `%HH`, `+`
    /// (a space), or a JSON escape.
    private static func firstByteEncoded(in buffer: UnsafeBufferPointer<UInt8>, at position: Int) -> UInt8? {
        switch buffer[position] {
        case UInt8(ascii: "%"):
            return percentDecoded(buffer, at: position)
        case UInt8(ascii: "+"):
            return 0x20
        case UInt8(ascii: "\\"):
            guard position + 1 < buffer.count else { return nil }
            let escaped = buffer[position + 1]
            if let short = shortEscapes.first(where: { $0.value == escaped }) { return UInt8(short.key) }
            guard escaped == UInt8(ascii: "u"), let unit = hexUnit(buffer, at: position + 2) else { return nil }
            var value = UInt32(unit)
            if (0xD800...0xDBFF).contains(unit), let low = lowSurrogate(buffer, at: position + 6) {
                value = 0x10000 + ((value - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            }
            return Unicode.Scalar(value).flatMap { String($0).utf8.first }
        default:
            return nil
        }
    }

    /// The end of the longest encoding of `needle` starting at `start`, following every way each
    /// character can be written at once (a set of positions, never a backtracking search).
    private func match(_ needle: Needle, in buffer: UnsafeBufferPointer<UInt8>, at start: Int, _ workspace: inout Workspace) -> Int? {
        // As is, byte for byte: the common case, and the common rejection. An encoded match
        // can only part from this path where the text holds a byte that starts an encoding:
        // where the text differs, or earlier, where the value itself holds one.
        var end = start
        for byte in needle.bytes {
            guard end < buffer.count, buffer[end] == byte else { break }
            end += 1
        }
        if end - start == needle.bytes.count { return end }
        guard end < buffer.count, end - start > needle.firstEncodingByte || Self.startsEncoding(buffer[end]) else { return nil }
        workspace.positions.removeAll(keepingCapacity: true)
        workspace.positions.append(start)
        for (bytes, scalar) in zip(needle.characters, needle.scalars) {
            workspace.next.removeAll(keepingCapacity: true)
            for position in workspace.positions {
                Self.ends(of: bytes, scalar, in: buffer, at: position) { end in
                    if !workspace.next.contains(end) { workspace.next.append(end) }
                }
            }
            if workspace.next.isEmpty { return nil }
            swap(&workspace.positions, &workspace.next)
        }
        return workspace.positions.max()
    }

    /// Calls `found` with the end of each way `scalar` can be written at `position`.
    private static func ends(
        of bytes: [UInt8], _ scalar: Unicode.Scalar, in buffer: UnsafeBufferPointer<UInt8>, at position: Int, found: (Int) -> Void
    ) {
        // Its UTF-8 bytes, each as is or percent-encoded.
        var end = position
        var matched = true
        for byte in bytes {
            if let decoded = percentDecoded(buffer, at: end), decoded == byte {
                end += 3
            } else if end < buffer.count, buffer[end] == byte {
                end += 1
            } else {
                matched = false
                break
            }
        }
        if matched { found(end) }
        guard position < buffer.count else { return }
        if scalar == " ", buffer[position] == UInt8(ascii: "+") { found(position + 1) }
        guard buffer[position] == UInt8(ascii: "\\"), position + 1 < buffer.count else { return }
        // JSON escapes.
        let escaped = buffer[position + 1]
        if let short = shortEscapes[scalar.value], short == escaped { found(position + 2) }
        guard escaped == UInt8(ascii: "u"), let unit = hexUnit(buffer, at: position + 2) else { return }
        if scalar.value <= 0xFFFF {
            if UInt32(unit) == scalar.value { found(position + 6) }
        } else if let low = Self.lowSurrogate(buffer, at: position + 6) {
            let value = 0x10000 + ((UInt32(unit) &- 0xD800) << 10) + (UInt32(low) &- 0xDC00)
            if (0xD800...0xDBFF).contains(unit), value == scalar.value { found(position + 12) }
        }
    }

    private static let shortEscapes: [UInt32: UInt8] = [
        0x2F: UInt8(ascii: "/"), 0x22: UInt8(ascii: "\""), 0x5C: UInt8(ascii: "\\"), 0x0A: UInt8(ascii: "n"),
        0x0D: UInt8(ascii: "r"), 0x09: UInt8(ascii: "t"), 0x08: UInt8(ascii: "b"), 0x0C: UInt8(ascii: "f"),
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
