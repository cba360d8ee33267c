import Foundation

/// The layout of one cache file: a fixed header, the key, then the payload. All integers little-endian.
///
/// ```
///  0  magic            4 bytes  "LNDC"
///  4  format version   UInt16   1
///  6  reserved         UInt16   0
///  8  key length       UInt32   bytes of the key's UTF-8
/// 12  payload length   UInt64
/// 20  payload checksum UInt64   StripeHash of the payload
/// 28  header checksum  UInt64   StripeHash of bytes 0..<28 followed by the key
/// 36  key              (key length bytes)
///     payload          (payload length bytes)
/// ```
/// A file is served only if its size is exactly 36 + key length + payload length and both checksums match; the key
/// is compared with the one asked for, so two keys whose names collide never see each other's data.
enum DiskCacheEntryFormat {
    static let magic: [UInt8] = Array("LNDC".utf8)
    static let version: UInt16 = 1
    static let fixedSize = 36
    private static let checkedPrefix = 28
    private static let headerSeed: UInt64 = 0x4845_4144

    /// The header and key bytes to write before `payload`.
    static func header(key: [UInt8], payload: Data) -> [UInt8] {
        var bytes = magic
        bytes.reserveCapacity(fixedSize + key.count)
        append(&bytes, UInt64(version), width: 2)
        append(&bytes, 0, width: 2)
        append(&bytes, UInt64(key.count), width: 4)
        append(&bytes, UInt64(payload.count), width: 8)
        append(&bytes, StripeHash.hash(payload), width: 8)
        append(&bytes, headerChecksum(prefix: bytes[...], key: key), width: 8)
        bytes += key
        return bytes
    }

    /// What the fixed header of a file says, once checked against the file's size.
    struct Header: Equatable {
        var keyLength: Int
        var payloadLength: Int
        var payloadChecksum: UInt64
        var headerChecksum: UInt64
        var payloadOffset: Int { DiskCacheEntryFormat.fixedSize + keyLength }
    }

    /// Parses the first ``fixedSize`` bytes of a file of `fileSize` bytes; the reason it is corrupt otherwise.
    static func parse(_ fixed: [UInt8], fileSize: Int) -> Result<Header, CorruptEntry> {
        guard fixed.count == fixedSize, fileSize >= fixedSize else { return .failure(CorruptEntry("truncated header")) }
        guard Array(fixed[0..<4]) == magic else { return .failure(CorruptEntry("bad magic")) }
        guard read(fixed, at: 4, width: 2) == UInt64(version) else { return .failure(CorruptEntry("unknown version")) }
        let keyLength = Int(read(fixed, at: 8, width: 4))
        let payloadLength = read(fixed, at: 12, width: 8)
        guard payloadLength <= UInt64(Int.max - fixedSize - keyLength),
              fixedSize + keyLength + Int(payloadLength) == fileSize
        else { return .failure(CorruptEntry("size does not match the header (truncated or extended)")) }
        return .success(Header(keyLength: keyLength, payloadLength: Int(payloadLength),
                               payloadChecksum: read(fixed, at: 20, width: 8),
                               headerChecksum: read(fixed, at: 28, width: 8)))
    }

    /// Whether the stored header checksum matches the fixed header and the key read from the file.
    static func headerIsIntact(_ fixed: [UInt8], key: [UInt8], header: Header) -> Bool {
        headerChecksum(prefix: fixed[0..<checkedPrefix], key: key) == header.headerChecksum
    }

    private static func headerChecksum(prefix: ArraySlice<UInt8>, key: [UInt8]) -> UInt64 {
        StripeHash.hash(Array(prefix) + key, seed: headerSeed)
    }

    private static func append(_ bytes: inout [UInt8], _ value: UInt64, width: Int) {
        for i in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }

    private static func read(_ bytes: [UInt8], at offset: Int, width: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<width { value |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
        return value
    }
}

/// Why a cache file was rejected.
struct CorruptEntry: Error, Equatable {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}
