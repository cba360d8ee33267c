import CLanesCodecs
import Foundation
import Lanes
import LanesImages
import LanesTesting
import Testing

/// PNGs whose ancillary chunks lie about their length or inflate without bound: they cost the decoder no memory beyond
/// a small bound, fail with a clear error when cut short, and decode normally when the pixels are intact.
@Suite(.serialized, .timeLimit(.minutes(5)), .heavy) struct HostilePNGTests {
    let decoder = ImageDecoder()

    /// Signature, IHDR, then a chunk of `type` declaring `length` bytes followed by only `present` bytes of it.
    static func lyingChunk(_ type: String, length: UInt32, present: Int = 20) -> [UInt8] {
        TinyPNG.signature + TinyPNG.ihdr(width: 1, height: 1, bitDepth: 8, colourType: 6, interlaced: false)
            + TinyPNG.bigEndian(length) + Array(type.utf8) + [UInt8](repeating: 0x41, count: present)
    }

    /// A valid 2x2 PNG with `extra` inserted right after its IHDR.
    static func valid(with extra: [UInt8]) -> [UInt8] {
        let file = TinyPNG.make(width: 2, height: 2, colourType: 2, bitDepth: 8) { x, y in [x * 200, y * 200, 50] }
        return Array(file.prefix(33)) + extra + Array(file.dropFirst(33))
    }

    @Test func sixtyOneBytesDeclaringTwoGigabytesAllocateNothingLarge() throws {
        let before = ResourceUsage.now().peakResidentBytes
        for type in ["tEXt", "zTXt", "iTXt", "iCCP", "eXIf", "zzZz"] {
            for length: UInt32 in [0x7FFF_FFFF, 100_000_000] {
                let file = Self.lyingChunk(type, length: length)
                #expect(file.count == 61)
                #expect(throws: ImageError.truncated) { try decoder.decode(file) }
                // The declared length never became an allocation (libpng's own structures are tens of KB).
                #expect(clanes_png_last_largest_allocation() < 1 << 20, "\(type) declaring \(length)")
            }
        }
        // Before the limits each of these made libpng allocate (and touch) the declared length: 2 GB of peak RSS.
        // (The peak is the process's: the margin leaves room for suites running beside this one.)
        #expect(ResourceUsage.now().peakResidentBytes - before < 1 << 30)
    }

    @Test func ancillaryChunksDoNotStopADecode() throws {
        let text = TinyPNG.chunk("tEXt", Array("Comment\0".utf8) + [UInt8](repeating: 0x42, count: 3 << 20))
        let unknown = TinyPNG.chunk("prVt", [UInt8](repeating: 7, count: 2 << 20))
        let bitmap = try decoder.decode(Self.valid(with: text + unknown))
        #expect(bitmap.width == 2 && bitmap.height == 2)
        #expect(rgb(bitmap, 1, 1) == [200, 200, 50])
    }

    @Test func aZTXtBombInflatesNothing() throws {
        // A zlib stream that inflates to 16 MB: the IDAT data of an encoded all-zero image, reused as zTXt text.
        let zeros = Bitmap(width: 2048, height: 2048, pixels: [UInt8](repeating: 0, count: 2048 * 2048 * 4))
        let encoded = try [UInt8](ImageEncoder().encode(zeros, as: .png(compressionLevel: 9)))
        let idat = Self.chunkData("IDAT", in: encoded)
        #expect(idat.count < 100_000)
        let bomb = TinyPNG.chunk("zTXt", Array("Comment\0".utf8) + [0] + idat)
        let before = ResourceUsage.now().peakResidentBytes
        for _ in 0..<8 {
            let bitmap = try decoder.decode(Self.valid(with: bomb))
            #expect(bitmap.width == 2)
            #expect(clanes_png_last_largest_allocation() < 1 << 20)  // the 16 MB text was never inflated
        }
        #expect(ResourceUsage.now().peakResidentBytes - before < 256 << 20)  // the process's peak, shared with other suites
    }

    /// The data of every chunk of `type` in `file`, concatenated.
    static func chunkData(_ type: String, in file: [UInt8]) -> [UInt8] {
        var offset = 8
        var data: [UInt8] = []
        while offset + 8 <= file.count {
            let length = file[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let name = String(decoding: file[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard offset + 12 + length <= file.count else { break }
            if name == type { data += file[(offset + 8)..<(offset + 8 + length)] }
            offset += 12 + length
        }
        return data
    }
}
