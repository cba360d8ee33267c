import Foundation
import LanesImages
import LanesTesting
import Testing

/// Fixture files copied into the test bundle.
enum Fixture {
    static func data(_ name: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"),
                               "missing fixture \(name)")
        return try Data(contentsOf: url)
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try data(name))
    }
}

/// Sums of the R, G and B bytes over a whole bitmap (a cheap whole-image fingerprint).
func channelSums(_ bitmap: Bitmap) -> [Int] {
    var sums = [0, 0, 0]
    for i in stride(from: 0, to: bitmap.pixels.count, by: 4) {
        sums[0] += Int(bitmap.pixels[i])
        sums[1] += Int(bitmap.pixels[i + 1])
        sums[2] += Int(bitmap.pixels[i + 2])
    }
    return sums
}

/// The RGB triple of a pixel, for compact expectations.
func rgb(_ bitmap: Bitmap, _ x: Int, _ y: Int) -> [Int] {
    let p = bitmap[x, y]
    return [Int(p.red), Int(p.green), Int(p.blue)]
}

/// Whether every channel of `a` is within `tolerance` of `b`.
func close(_ a: RGBA, _ b: RGBA, tolerance: Int) -> Bool {
    abs(Int(a.red) - Int(b.red)) <= tolerance && abs(Int(a.green) - Int(b.green)) <= tolerance
        && abs(Int(a.blue) - Int(b.blue)) <= tolerance && abs(Int(a.alpha) - Int(b.alpha)) <= tolerance
}

/// A bitmap whose pixel (x, y) is `colour(x, y)`.
func makeBitmap(width: Int, height: Int, _ colour: (Int, Int) -> RGBA) -> Bitmap {
    var bitmap = Bitmap(width: width, height: height)
    for y in 0..<height {
        for x in 0..<width {
            bitmap[x, y] = colour(x, y)
        }
    }
    return bitmap
}

/// A deterministic pseudo-random opaque bitmap (xorshift), for round trips and reference checks.
func noiseBitmap(width: Int, height: Int, seed: UInt32 = 0x9E37_79B9, opaque: Bool = true) -> Bitmap {
    var state = seed
    var pixels = [UInt8](repeating: 0, count: width * height * 4)
    for i in pixels.indices {
        state ^= state << 13
        state ^= state >> 17
        state ^= state << 5
        pixels[i] = (opaque && i % 4 == 3) ? 255 : UInt8(truncatingIfNeeded: state >> 8)
    }
    return Bitmap(width: width, height: height, pixels: pixels)
}

/// Writes PNG files byte by byte — independent of libpng — with stored (uncompressed)
/// deflate blocks, so tests control every colour type, bit depth and interlacing.
enum TinyPNG {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 {
                crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
            }
        }
        return ~crc
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }

    /// A zlib stream of stored blocks.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65535, data.count - offset)
            let final: UInt8 = offset + count == data.count ? 1 : 0
            out += [final, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[offset..<(offset + count)]
            offset += count
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + bigEndian(b << 16 | a)
    }

    static func ihdr(width: Int, height: Int, bitDepth: Int, colourType: Int, interlaced: Bool) -> [UInt8] {
        chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height))
            + [UInt8(bitDepth), UInt8(colourType), 0, 0, interlaced ? 1 : 0])
    }

    /// Just the signature and IHDR: a header that claims a size and holds no pixels.
    static func headerOnly(width: Int, height: Int) -> [UInt8] {
        signature + ihdr(width: width, height: height, bitDepth: 8, colourType: 6, interlaced: false)
    }

    /// A PNG whose pixel (x, y) has the channel samples `samples(x, y)` (already at `bitDepth`).
    static func make(width: Int, height: Int, colourType: Int, bitDepth: Int, interlaced: Bool = false,
                     palette: [[UInt8]] = [], transparency: [UInt8]? = nil,
                     samples: (Int, Int) -> [Int]) -> [UInt8] {
        var raw: [UInt8] = []
        let passes: [(Int, Int, Int, Int)] = interlaced
            ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            : [(0, 0, 1, 1)]
        for (x0, y0, dx, dy) in passes {
            let passWidth = width > x0 ? (width - x0 + dx - 1) / dx : 0
            let passHeight = height > y0 ? (height - y0 + dy - 1) / dy : 0
            guard passWidth > 0 && passHeight > 0 else { continue }
            for row in 0..<passHeight {
                var bits = BitPacker(depth: bitDepth)
                for column in 0..<passWidth {
                    for sample in samples(x0 + column * dx, y0 + row * dy) {
                        bits.append(sample)
                    }
                }
                raw.append(0) // filter type None
                raw += bits.finish()
            }
        }
        var file = signature + ihdr(width: width, height: height, bitDepth: bitDepth,
                                    colourType: colourType, interlaced: interlaced)
        if !palette.isEmpty {
            file += chunk("PLTE", palette.flatMap { $0 })
        }
        if let transparency {
            file += chunk("tRNS", transparency)
        }
        return file + chunk("IDAT", zlibStored(raw)) + chunk("IEND", [])
    }

    /// Packs samples of 1, 2, 4, 8 or 16 bits, most significant bits first.
    struct BitPacker {
        let depth: Int
        var bytes: [UInt8] = []
        var accumulator = 0
        var used = 0

        init(depth: Int) { self.depth = depth }

        mutating func append(_ sample: Int) {
            switch depth {
            case 16: bytes += [UInt8(sample >> 8), UInt8(sample & 0xFF)]
            case 8: bytes.append(UInt8(sample))
            default:
                accumulator = accumulator << depth | sample
                used += depth
                if used == 8 {
                    bytes.append(UInt8(accumulator))
                    accumulator = 0
                    used = 0
                }
            }
        }

        mutating func finish() -> [UInt8] {
            if used > 0 {
                bytes.append(UInt8(accumulator << (8 - used)))
            }
            return bytes
        }
    }
}

/// Builds Exif APP1 segments by hand and splices them into JPEG data.
enum ExifSegment {
    /// `FF E1 <length> "Exif\0\0" <TIFF header> <IFD0 with one orientation entry>`.
    static func orientation(_ value: UInt16, bigEndian: Bool) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] { bigEndian ? TinyPNG.bigEndian(v) : TinyPNG.bigEndian(v).reversed() }
        var tiff: [UInt8] = bigEndian ? Array("MM".utf8) : Array("II".utf8)
        tiff += u16(42) + u32(8)                      // magic, offset of IFD0
        tiff += u16(2)                                 // two entries
        tiff += u16(0x010F) + u16(2) + u32(4) + Array("Cam\0".utf8) // Make: an unrelated tag first
        tiff += u16(0x0112) + u16(3) + u32(1) + u16(value) + u16(0)
        tiff += u32(0)                                 // no next IFD
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// `jpeg` with `segment` inserted right after its SOI marker.
    static func inserting(_ segment: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
        Array(jpeg[0..<2]) + segment + Array(jpeg[2...])
    }
}

/// The error `body` throws on a dedicated thread (it may block, as reading rows from a download does), or nil.
func failureOnDedicatedThread(_ body: () throws -> Void) async -> (any Error)? {
    await onDedicatedThread { () -> (any Error)? in
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }
}
