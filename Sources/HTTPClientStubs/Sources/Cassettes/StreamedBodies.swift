import Foundation
import HTTPClient

/// Writes a cassette file (or a HAR archive) without ever holding it whole in memory: the structure is encoded
/// with each body replaced by a token, then written with every body streamed in its place
/// (JSON-escaped text, or base64) in chunks. A 100 MB body costs the body, not three copies.
final class StreamedBodies: Sendable {
    static let key: CodingUserInfoKey = {
        guard let key = CodingUserInfoKey(rawValue: "HTTPClientStubs.StreamedBodies") else { preconditionFailure("a constant key") }
        return key
    }()

    /// Unique per write, so no header or URL can look like a token.
    private let prefix = "httpclient-body-\(AtomicFile.randomName())-"
    private let bodies = Locked<[Cassette.Body]>([])

    /// The token that stands for `body` in the encoded structure.
    func token(for body: Cassette.Body) -> String {
        bodies.withLock { bodies in
            bodies.append(body)
            return prefix + String(bodies.count - 1)
        }
    }

    /// Writes what `skeleton` encodes to `url` atomically, each body it stood a token in for
    /// (``token(for:)``, as a JSON string's value) streamed in its place.
    static func write(to url: URL, skeleton encode: (StreamedBodies) throws -> Data) throws {
        let streamed = StreamedBodies()
        let skeleton = try encode(streamed)
        let bodies = streamed.bodies.current
        let marker = Data(("\"" + streamed.prefix).utf8)
        try AtomicFile.write(to: url) { sink in
            var position = skeleton.startIndex
            while let found = skeleton.range(of: marker, in: position..<skeleton.endIndex) {
                let numberStart = found.upperBound
                guard let quote = skeleton[numberStart...].firstIndex(of: UInt8(ascii: "\"")),
                    let index = Int(String(decoding: skeleton[numberStart..<quote], as: UTF8.self)), bodies.indices.contains(index)
                else { throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "a body token was not found whole"]) }
                try sink(skeleton[position...found.lowerBound])
                try stream(bodies[index], to: sink)
                position = quote
            }
            try sink(skeleton[position...])
        }
    }

    /// How many body bytes are turned into text at a time.
    private static let chunk = 48 * 1024

    private static func stream(_ body: Cassette.Body, to sink: (Data) throws -> Void) throws {
        if body.isText {
            try body.data.withUnsafeBytes { raw in
                let bytes = raw.bindMemory(to: UInt8.self)
                // Runs that need no escape (nearly everything) go out as slices.
                var buffer = Data()
                buffer.reserveCapacity(chunk + 16)
                var runStart = 0
                for index in 0..<bytes.count where needsEscape(bytes[index]) {
                    buffer.append(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                    appendEscaped(bytes[index], to: &buffer)
                    runStart = index + 1
                    if buffer.count >= chunk {
                        try sink(buffer)
                        buffer.removeAll(keepingCapacity: true)
                    }
                }
                buffer.append(UnsafeBufferPointer(rebasing: bytes[runStart...]))
                try sink(buffer)
            }
        } else {
            let data = body.data
            var start = data.startIndex
            while start < data.endIndex {
                let end = data.index(start, offsetBy: chunk, limitedBy: data.endIndex) ?? data.endIndex
                // A chunk is a multiple of 3 bytes, so the pieces join into one valid base64 text.
                try sink(Data(data[start..<end].base64EncodedString().utf8))
                start = end
            }
        }
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// A JSON string byte as `JSONEncoder` writes it: `"` and `\` escaped, control characters
    /// as `\n`-style or `\u00xx` escapes, everything else (UTF-8 included) as is.
    private static func appendEscaped(_ byte: UInt8, to buffer: inout Data) {
        switch byte {
        case UInt8(ascii: "\""): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case 0x0A: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0D: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 0x09: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        case 0x08: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
        case 0x0C: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
        case ..<0x20:
            let hex = Array("0123456789abcdef".utf8)
            buffer.append(contentsOf: Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
        default: buffer.append(byte)
        }
    }
}
