import Foundation

/// A fast 64-bit checksum for cache entries and key names (not cryptographic).
///
/// Four independent lanes each absorb one 8-byte word of every 32-byte stripe with an add, a multiply by an odd
/// constant and a rotate — all bijections of the lane — so changing any single word (hence any byte or bit) of the
/// input always changes the result. The lanes are folded together and finished with an avalanche step, so nearby
/// inputs (keys that differ in one character) give unrelated names. Throughput is several GB/s in release builds,
/// well above disk speed.
enum StripeHash {
    private static let k1: UInt64 = 0x9E37_79B9_7F4A_7C15
    private static let k2: UInt64 = 0xBF58_476D_1CE4_E5B9
    private static let k3: UInt64 = 0x94D0_49BB_1331_11EB

    @inline(__always)
    private static func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }

    @inline(__always)
    private static func absorb(_ lane: UInt64, _ word: UInt64) -> UInt64 {
        rotl(lane &+ word &* k2, 31) &* k1
    }

    @inline(__always)
    private static func avalanche(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* k2
        z = (z ^ (z >> 27)) &* k3
        return z ^ (z >> 31)
    }

    /// The checksum of `bytes`, seeded so that two seeds give independent 64-bit hashes of the same input.
    static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        let count = bytes.count
        var offset = 0
        var h: UInt64
        if count >= 32, let base = bytes.baseAddress {
            var a = seed &+ k1 &+ k2
            var b = seed &+ k2
            var c = seed
            var d = seed &- k1
            while offset + 32 <= count {
                a = absorb(a, UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
                b = absorb(b, UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)))
                c = absorb(c, UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self)))
                d = absorb(d, UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self)))
                offset += 32
            }
            // Each fold is a bijection of the lane and of `h`, so a change confined to one lane survives.
            h = seed &+ k3
            h = (h ^ absorb(0, a)) &* k1 &+ k3
            h = (h ^ absorb(0, b)) &* k1 &+ k3
            h = (h ^ absorb(0, c)) &* k1 &+ k3
            h = (h ^ absorb(0, d)) &* k1 &+ k3
        } else {
            h = seed &+ k3
        }
        h = h &+ UInt64(count)
        if let base = bytes.baseAddress {
            while offset + 8 <= count {
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                h = rotl(h ^ absorb(0, word), 27) &* k1 &+ k2
                offset += 8
            }
            while offset < count {
                h = rotl(h ^ (UInt64(base.load(fromByteOffset: offset, as: UInt8.self)) &* k3), 11) &* k1
                offset += 1
            }
        }
        return avalanche(h)
    }

    /// The checksum of `data`'s bytes.
    static func hash(_ data: Data, seed: UInt64 = 0) -> UInt64 {
        data.withUnsafeBytes { hash($0, seed: seed) }
    }

    /// The checksum of `bytes`.
    static func hash(_ bytes: [UInt8], seed: UInt64 = 0) -> UInt64 {
        bytes.withUnsafeBytes { hash($0, seed: seed) }
    }

    /// A 128-bit name for `key` as 32 lowercase hex digits: two independently seeded hashes of its UTF-8 bytes.
    static func name(forKey key: String) -> String {
        let bytes = Array(key.utf8)
        return hex(hash(bytes, seed: 0)) + hex(hash(bytes, seed: 0x5851_F42D_4C95_7F2D))
    }

    /// `value` as 16 lowercase hex digits.
    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
