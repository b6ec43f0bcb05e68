import Foundation
import Testing

@testable import HTTPClientStubs

@Suite("UTF-8 validation")
struct UTF8ValidationTests {
    static func isValid(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBufferPointer(UTF8Validation.isValid) }

    @Test(
        "agrees with Foundation on the edge cases",
        arguments: [
            [], [0x41], [0xC3, 0xA9], [0xE2, 0x82, 0xAC], [0xF0, 0x9F, 0x98, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
            [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],
            [0x80], [0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xFF], [0x41, 0xC3, 0x41],
        ] as [[UInt8]])
    func edgeCases(bytes: [UInt8]) {
        #expect(Self.isValid(bytes) == (String(bytes: bytes, encoding: .utf8) != nil))
    }

    @Test func agreesWithFoundationOnRandomBytes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                // Mostly bytes that start or continue multi-byte sequences, where the rules are.
                UInt8.random(in: 0x70...0xFF, using: &generator)
            }
            #expect(Self.isValid(bytes) == (String(bytes: bytes, encoding: .utf8) != nil), "\(bytes)")
        }
    }
}
