import Foundation

/// MD5 (RFC 1321), for the one thing it is still used for here: the file names of the freedesktop thumbnail cache,
/// which are the MD5 of the original's URI (``ThumbnailCache``). Not for anything that needs a secure hash.
///
/// ```swift
/// MD5.hex(of: Array("abc".utf8))   // "900150983cd24fb0d6963f7d28e17f72"
/// ```
package enum MD5 {
    /// The 16-byte digest of `message`.
    package static func digest(of message: [UInt8]) -> [UInt8] {
        var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
        // Padding: a 1 bit, zeros to 56 bytes mod 64, then the length in bits, little-endian.
        var padded = message
        padded.append(0x80)
        while padded.count % 64 != 56 { padded.append(0) }
        let bits = UInt64(message.count) &* 8
        for index in 0..<8 { padded.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(index)))) }
        var words = [UInt32](repeating: 0, count: 16)
        for block in stride(from: 0, to: padded.count, by: 64) {
            for index in 0..<16 {
                let at = block + 4 * index
                words[index] = UInt32(padded[at]) | UInt32(padded[at + 1]) << 8 | UInt32(padded[at + 2]) << 16
                    | UInt32(padded[at + 3]) << 24
            }
            var (a, b, c, d) = state
            for step in 0..<64 {
                let f: UInt32, g: Int
                switch step {
                case 0..<16: (f, g) = ((b & c) | (~b & d), step)
                case 16..<32: (f, g) = ((d & b) | (~d & c), (5 * step + 1) % 16)
                case 32..<48: (f, g) = (b ^ c ^ d, (3 * step + 5) % 16)
                default: (f, g) = (c ^ (b | ~d), (7 * step) % 16)
                }
                let sum = a &+ f &+ sines[step] &+ words[g]
                (a, d, c) = (d, c, b)
                b = b &+ (sum << shifts[step] | sum >> (32 - shifts[step]))
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
        }
        return [state.0, state.1, state.2, state.3].flatMap { word in
            (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * UInt32($0))) }
        }
    }

    /// The digest of `message` as 32 lowercase hexadecimal digits.
    package static func hex(of message: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in digest(of: message) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Each step's left rotation (RFC 1321, 3.4).
    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]

    /// floor(2^32 × |sin(i + 1)|) for each step i (RFC 1321's table T).
    private static let sines: [UInt32] = (0..<64).map { UInt32(truncatingIfNeeded: Int64((abs(sin(Double($0 + 1))) * 4_294_967_296).rounded(.down))) }
}
