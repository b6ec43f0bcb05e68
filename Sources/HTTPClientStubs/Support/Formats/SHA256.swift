import Foundation

// Written here, not taken from a library: the package has no dependencies, and CryptoKit does
// not exist on Linux.

/// SHA-256 (FIPS 180-4), for the hashed file names of VOKMockData fixture folders.
///
/// A request's body is hashed for every fixture folder it is looked up in, on the server's event
/// loop: the blocks are read in place from the body, and the rounds work on raw buffers, so that
/// even an unoptimised (debug) build hashes a large upload in a fraction of a second.
enum SHA256 {
    /// The lowercase hex digest of `data`.
    static func hex(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in digest(data) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The lowercase hex digest of `string`'s UTF-8 bytes.
    static func hex(_ string: String) -> String { hex(Data(string.utf8)) }

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// The 32 bytes of `data`'s digest.
    static func digest(_ data: Data) -> [UInt8] {
        var state = State()
        data.withUnsafeBytes { bytes in
            let whole = bytes.count / 64 * 64
            var offset = 0
            while offset < whole {
                state.compress(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 64]))
                offset += 64
            }
            // The rest, 0x80, zeros, and the length in bits: one block, or two when the rest
            // leaves fewer than 9 bytes of room.
            var tail = [UInt8](bytes[whole...])
            tail.append(0x80)
            while tail.count % 64 != 56 { tail.append(0) }
            let bits = UInt64(bytes.count) &* 8
            for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
            tail.withUnsafeBytes { tail in
                for start in stride(from: 0, to: tail.count, by: 64) {
                    state.compress(UnsafeRawBufferPointer(rebasing: tail[start..<start + 64]))
                }
            }
        }
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in state.h {
            digest += [
                UInt8(truncatingIfNeeded: word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8),
                UInt8(truncatingIfNeeded: word),
            ]
        }
        return digest
    }

    /// The running hash, and the message schedule it reuses for every block.
    private struct State {
        var h: [UInt32] = [0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19]
        var w = [UInt32](repeating: 0, count: 64)

        /// Mixes one 64-byte block into `h`.
        mutating func compress(_ block: UnsafeRawBufferPointer) {
            var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
            w.withUnsafeMutableBufferPointer { w in
                SHA256.k.withUnsafeBufferPointer { k in
                    for i in 0..<16 {
                        let at = i &* 4
                        w[i] = UInt32(block[at]) << 24 | UInt32(block[at &+ 1]) << 16 | UInt32(block[at &+ 2]) << 8 | UInt32(block[at &+ 3])
                    }
                    for i in 16..<64 {
                        let x = w[i &- 15]
                        let y = w[i &- 2]
                        let s0 = (x >> 7 | x << 25) ^ (x >> 18 | x << 14) ^ (x >> 3)
                        let s1 = (y >> 17 | y << 15) ^ (y >> 19 | y << 13) ^ (y >> 10)
                        w[i] = w[i &- 16] &+ s0 &+ w[i &- 7] &+ s1
                    }
                    for i in 0..<64 {
                        let s1 = (e >> 6 | e << 26) ^ (e >> 11 | e << 21) ^ (e >> 25 | e << 7)
                        let choice = (e & f) ^ (~e & g)
                        let t1 = hh &+ s1 &+ choice &+ k[i] &+ w[i]
                        let s0 = (a >> 2 | a << 30) ^ (a >> 13 | a << 19) ^ (a >> 22 | a << 10)
                        let majority = (a & b) ^ (a & c) ^ (b & c)
                        hh = g
                        g = f
                        f = e
                        e = d &+ t1
                        d = c
                        c = b
                        b = a
                        a = t1 &+ s0 &+ majority
                    }
                }
            }
            h[0] = h[0] &+ a
            h[1] = h[1] &+ b
            h[2] = h[2] &+ c
            h[3] = h[3] &+ d
            h[4] = h[4] &+ e
            h[5] = h[5] &+ f
            h[6] = h[6] &+ g
            h[7] = h[7] &+ hh
        }
    }
}
