import Foundation
import LanesImages
import Testing

/// Hostile HEIF and JPEG XL: headers that lie about the size, decompression bombs, frame limits. Each fails with one
/// line from the header, before libheif or libjxl decodes anything the size of the claim (truncations are in
/// FormatHostileTests with the other formats).
@Suite("Formats: hostile HEIF and JPEG XL", .timeLimit(.minutes(5)))
struct HEIFJXLHostileTests {
    let decoder = ImageDecoder()

    @Test("a HEIF whose ispe boxes claim 60000x60000 fails from its header")
    func heifLyingSize() throws {
        let bytes = HostileHEIF.claiming(width: 60000, height: 60000, in: try [UInt8](FormatFixture.data("photo.heic")))
        #expect(try decoder.probe(bytes).width == 60000)
        #expect(throws: ImageError.tooLarge(width: 60000, height: 60000, limit: ImageDecoder.defaultMaxPixels)) {
            try decoder.decode(bytes)
        }
        #expect(throws: ImageError.tooLarge(width: 60000, height: 60000, limit: ImageDecoder.defaultMaxPixels)) {
            try decoder.decodeAnimation(Data(bytes))
        }
        // With no pixel limit, the byte limit (checked before decoding) still refuses the claim.
        let error = #expect(throws: ImageError.self) { try decoder.decodeAnimation(Data(bytes), maxPixels: .max) }
        #expect(oneLine(error).contains("HEIF needs"), "\(oneLine(error))")
    }

    @Test("a HEIF that claims a smaller image than its data holds fails in one line, never a half image")
    func heifSmallerClaim() throws {
        let bytes = HostileHEIF.claiming(width: 16, height: 12, in: try [UInt8](FormatFixture.data("photo.heic")))
        do {
            let bitmap = try decoder.decode(bytes)
            // libheif may crop the decoded image to what ispe says: then the bitmap has the header's size.
            #expect(bitmap.width == 16 && bitmap.height == 12)
        } catch let error as ImageError {
            #expect(!"\(error)".contains("\n"))
        }
    }

    @Test("a 15-byte JPEG XL codestream claiming 100000x100000 fails from its header, with or without a pixel limit")
    func jxlLyingSize() throws {
        let bytes = HostileJXL.codestream(width: 100_000, height: 100_000)
        #expect(bytes.count == 15)
        let info = try decoder.probe(bytes)
        #expect(info.format == .jxl && info.width == 100_000 && info.height == 100_000)
        #expect(throws: ImageError.tooLarge(width: 100_000, height: 100_000, limit: ImageDecoder.defaultMaxPixels)) {
            try decoder.decode(bytes)
        }
        let error = #expect(throws: ImageError.self) { try decoder.decodeAnimation(Data(bytes), maxPixels: .max) }
        #expect(oneLine(error).contains("JPEG XL needs"), "\(oneLine(error))")
        // Within the limits, the missing pixel data is reported as such.
        #expect(throws: ImageError.self) { try decoder.decode(HostileJXL.codestream(width: 64, height: 48)) }
    }

    @Test("decompression bombs (4096x4096 of one colour in a few KB) fail on the pixel and byte limits",
          arguments: [("bomb.heic", "HEIF", 16), ("bomb.jxl", "JPEG XL", 20)])
    func bombs(_ name: String, _ codec: String, _ bytesPerPixel: Int) throws {
        let data = try FormatFixture.data(name)
        #expect(data.count < 10_000)
        #expect(throws: ImageError.tooLarge(width: 4096, height: 4096, limit: 4_000_000)) {
            try decoder.decode(data, maxPixels: 4_000_000)
        }
        let error = #expect(throws: ImageError.self) { try decoder.decodeAnimation(data, maxBytes: 64 << 20) }
        // The frame and the library's own buffers, counted from the header alone.
        #expect(error == .limitExceeded("\(codec) needs \(4096 * 4096 * bytesPerPixel) bytes for 1 frame of 4096x4096, "
                                        + "more than the limit of \(64 << 20) bytes"), "\(oneLine(error))")
        // What the pipeline reserves for a thumbnail of it counts the whole decode: neither library decodes in parts.
        let info = try decoder.probe(data)
        #expect(ImageDecoder.workingSetBytes(for: info, targetSize: TargetSize(maxWidth: 64))
                >= 4096 * 4096 * bytesPerPixel)
    }

    @Test("a JPEG XL animation's frames are counted from their headers against maxFrames")
    func jxlFrameLimit() throws {
        let data = try FormatFixture.data("anim.jxl")
        #expect(throws: ImageError.limitExceeded("JPEG XL has more frames than the limit of 2")) {
            try decoder.decodeAnimation(data, maxFrames: 2)
        }
        #expect(try decoder.decodeAnimation(data, maxFrames: 3).frames.count == 3)
        // A thumbnail reads the first frame only, whatever the limit.
        #expect(try decoder.decode(data).width == 64)
    }

    @Test("a HEIF or JPEG XL cut inside its header probes as truncated (a reader reads on), whole as the header",
          arguments: ["photo.heic", "photo.jxl", "rotated.jxl"])
    func headerPrefixes(_ name: String) throws {
        let bytes = try [UInt8](FormatFixture.data(name))
        // libheif alone calls a HEIF cut inside or before its `meta` box (40: just after `ftyp`) one with no `meta`
        // box: corrupt, not truncated. A JPEG XL's header is in its first bytes (after the container's boxes).
        let cuts = name == "photo.heic" ? [12, 40, 200, 600] : name == "photo.jxl" ? [3, 5] : [20, 40]
        for cut in cuts where cut < bytes.count {
            #expect(throws: ImageError.truncated, "\(name) cut at \(cut)") { try decoder.probe(Array(bytes.prefix(cut))) }
        }
        let info = try decoder.probe(bytes)
        #expect(info.width * info.height == 64 * 48)
        // The file reader's probe (its first 256 KB, more while the header is cut) gives the same header.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lanes-prefix-\(UUID().uuidString)")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let descriptor = open(url.path, O_RDONLY)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        #expect(try ImageRowDecoder.probe(fileDescriptor: descriptor) == info)
    }

    private func oneLine(_ error: ImageError?) -> String {
        let text = error.map { "\($0)" } ?? "no error"
        #expect(!text.contains("\n"))
        return text
    }
}

/// HEIF files whose `ispe` (image spatial extent) properties say another size.
enum HostileHEIF {
    static func claiming(width: Int, height: Int, in heif: [UInt8]) -> [UInt8] {
        var bytes = heif
        let tag = Array("ispe".utf8)
        var index = 0
        while index + 16 <= bytes.count {
            if Array(bytes[index..<(index + 4)]) == tag {
                // "ispe", version and flags (4 bytes), then width and height, big-endian.
                bytes.replaceSubrange((index + 8)..<(index + 16), with: be32(width) + be32(height))
            }
            index += 1
        }
        return bytes
    }

    private static func be32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (24 - $0 * 8)) & 0xFF) } }
}

/// JPEG XL codestreams written bit by bit: the signature, a size header, default image metadata, and no frame.
enum HostileJXL {
    static func codestream(width: Int, height: Int) -> [UInt8] {
        // Fields least significant bit first: not div8, height (selector 3: 30 bits + 1), ratio 0, width the same,
        // then all_default metadata (8-bit sRGB, no alpha).
        let fields: [(value: Int, bits: Int)] = [
            (0, 1), (3, 2), (height - 1, 30), (0, 3), (3, 2), (width - 1, 30), (1, 1),
        ]
        var bytes: [UInt8] = [0xFF, 0x0A]
        var accumulator = 0, count = 0
        for field in fields {
            for bit in 0..<field.bits {
                accumulator |= ((field.value >> bit) & 1) << count
                count += 1
                if count == 8 {
                    bytes.append(UInt8(accumulator))
                    accumulator = 0
                    count = 0
                }
            }
        }
        bytes.append(UInt8(accumulator))
        return bytes + [0, 0, 0, 0]
    }
}
