/// Rewrites the CRC of every complete chunk of a PNG. libpng rejects a chunk whose CRC does not
/// match, so without this nearly every mutation of a PNG dies at the first CRC check and the
/// fuzzer never reaches the header fields, the zlib stream or the row filters behind it.
enum PNGChunkRepair {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Fixes the CRCs in place; data that does not start with the PNG signature is left alone.
    static func fixCRCs(_ bytes: UnsafeMutableBufferPointer<UInt8>) {
        guard bytes.count >= 8, signature.indices.allSatisfy({ bytes[$0] == signature[$0] }) else { return }
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = (Int(bytes[offset]) << 24) | (Int(bytes[offset + 1]) << 16)
                | (Int(bytes[offset + 2]) << 8) | Int(bytes[offset + 3])
            let end = offset + 8 + length // type and data end here; the CRC follows
            guard length >= 0, end + 4 <= bytes.count else { return }
            let crc = crc32(UnsafeBufferPointer(rebasing: bytes[(offset + 4)..<end]))
            bytes[end] = UInt8(truncatingIfNeeded: crc >> 24)
            bytes[end + 1] = UInt8(truncatingIfNeeded: crc >> 16)
            bytes[end + 2] = UInt8(truncatingIfNeeded: crc >> 8)
            bytes[end + 3] = UInt8(truncatingIfNeeded: crc)
            offset = end + 4
        }
    }

    /// The CRC-32 PNG uses (polynomial 0xEDB88320, reflected, inverted).
    static func crc32(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return ~crc
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
        }
        return value
    }
}
