import Foundation
import LanesImages
import Testing

/// HEIF/HEIC (libheif) and JPEG XL (libjxl) decode as their reference decoders do: pixels within 3 of heif-convert's
/// and djxl's PNGs, upright, with their headers (size, depth, animation, embedded thumbnail) read without decoding.
@Suite("Formats: HEIF and JPEG XL against heif-convert and djxl", .timeLimit(.minutes(5)))
struct HEIFJXLDecodeTests {
    let decoder = ImageDecoder()

    @Test("HEIF stills (lossy, with alpha) decode within 3 of heif-convert", arguments: [
        "photo.heic", "alpha.heic",
    ])
    func heifStill(_ name: String) throws {
        let bitmap = try decoder.decode(FormatFixture.data(name))
        let reference = try FormatFixture.reference(name)
        #expect(largestDifference(bitmap, reference) <= 3, "\(name): \(largestDifference(bitmap, reference))")
    }

    @Test("JPEG XL stills (VarDCT, modular, with alpha) decode within 3 of djxl", arguments: [
        "photo.jxl", "photo-lossless.jxl", "alpha.jxl",
    ])
    func jxlStill(_ name: String) throws {
        let bitmap = try decoder.decode(FormatFixture.data(name))
        let reference = try FormatFixture.reference(name)
        #expect(largestDifference(bitmap, reference) <= 3, "\(name): \(largestDifference(bitmap, reference))")
    }

    @Test("a lossless JPEG XL holds the source's pixels exactly")
    func losslessIsLossless() throws {
        let bitmap = try decoder.decode(FormatFixture.data("photo-lossless.jxl"))
        #expect(firstDifference(bitmap, try decoder.decode(FormatFixture.data("photo.png"))) == nil)
    }

    @Test("a JPEG XL's orientation is applied by libjxl: orientation 6 decodes upright, 48x64, as djxl does")
    func jxlOrientation() throws {
        let data = try FormatFixture.data("rotated.jxl")
        let info = try decoder.probe(data)
        #expect(info.format == .jxl && info.width == 48 && info.height == 64 && info.orientation == .up)
        let bitmap = try decoder.decode(data)
        #expect(bitmap.width == 48 && bitmap.height == 64)
        #expect(largestDifference(bitmap, try FormatFixture.reference("rotated.jxl")) <= 3)
        // Upright: the photo's top-left corner is now at the top right.
        let photo = try decoder.decode(FormatFixture.data("photo.png"))
        #expect(close(bitmap[47, 0], photo[0, 0], tolerance: 24), "\(bitmap[47, 0]) vs \(photo[0, 0])")
    }

    @Test("a HEIC's Exif orientation is not applied (HEIF rotates by irot only, as heif-convert and libvips do)")
    func heifIgnoresExifOrientation() throws {
        let data = try FormatFixture.data("exif-rotated.heic")
        let info = try decoder.probe(data)
        #expect(info.width == 64 && info.height == 48 && info.orientation == .up)
        let bitmap = try decoder.decode(data)
        #expect(largestDifference(bitmap, try FormatFixture.reference("exif-rotated.heic")) <= 3)
    }

    @Test("the header is read by content: format, upright size, depth, alpha, animation, embedded thumbnail")
    func probe() throws {
        let photo = try decoder.probe(FormatFixture.data("photo.heic"))
        #expect(photo.format == .heif && photo.width == 64 && photo.height == 48 && photo.bitDepth == 8)
        #expect(photo.embeddedThumbnail == ImageInfo.EmbeddedThumbnail(width: 32, height: 24))
        #expect(!photo.isAnimated && photo.components == 3)
        #expect(try decoder.probe(FormatFixture.data("alpha.heic")).components == 4)
        #expect(try decoder.probe(FormatFixture.data("alpha.heic")).embeddedThumbnail == nil)
        let jxl = try decoder.probe(FormatFixture.data("photo.jxl"))
        #expect(jxl.format == .jxl && jxl.width == 64 && jxl.height == 48 && !jxl.isAnimated)
        #expect(try decoder.probe(FormatFixture.data("alpha.jxl")).components == 4)
        #expect(try decoder.probe(FormatFixture.data("anim.jxl")).isAnimated)
        for format in [ImageFormat.heif, .jxl] {
            #expect(format.isDecodable && format.decodesFrames)
        }
        #expect(ImageFormat.decodableExtensions.isSuperset(of: ["heic", "heif", "jxl"]))
        #expect(ImageFormat.sniff([0xFF, 0x0A, 0xFA]) == .jxl)
        #expect(ImageFormat.sniff([0, 0, 0, 0x0C] + Array("JXL ".utf8) + [0x0D, 0x0A, 0x87, 0x0A]) == .jxl)
        #expect(ImageFormat.jxl.description == "JPEG XL")
    }

    /// photo.heic's source is its 32x24 thumbnail item (it covers 16x12), photo.jxl's its image.
    @Test("thumbnails of both resize to the asked size, close to their source resized", arguments: [
        "photo.heic", "photo.jxl",
    ])
    func thumbnail(_ name: String) throws {
        let data = try FormatFixture.data(name)
        let thumbnail = try decoder.decode(data, targetSize: TargetSize(maxWidth: 16))
        #expect(thumbnail.width == 16 && thumbnail.height == 12)
        let full = try decoder.decodeEmbeddedThumbnail(data) ?? decoder.decode(data)
        let png = try ImageEncoder().encode(full, as: .png())
        let reference = try decoder.decode(png, targetSize: TargetSize(maxWidth: 16))
        #expect(largestDifference(thumbnail, reference) <= 3, "\(largestDifference(thumbnail, reference))")
    }

    @Test("a JPEG XL animation: every frame as the GIF it was made from, delays 80/120/200 ms")
    func jxlAnimation() throws {
        let data = try FormatFixture.data("anim.jxl")
        let animation = try decoder.decodeAnimation(data)
        #expect(animation.frames.count == 3 && animation.isAnimated)
        #expect(animation.frames.map(\.delay) == [.milliseconds(80), .milliseconds(120), .milliseconds(200)])
        for (index, frame) in animation.frames.enumerated() {
            let reference = try FormatFixture.reference("anim.gif", frame: index)
            #expect(firstDifference(frame.bitmap, reference, ignoringClearColour: true) == nil, "frame \(index)")
        }
        #expect(firstDifference(try decoder.decode(data), animation.frames[0].bitmap) == nil)
    }

    @Test("a still HEIF or JPEG XL is an animation of one frame", arguments: ["photo.heic", "photo.jxl"])
    func stillAnimation(_ name: String) throws {
        let animation = try decoder.decodeAnimation(FormatFixture.data(name))
        #expect(animation.frames.count == 1 && !animation.isAnimated)
        #expect(animation.frames[0].bitmap.width == 64)
    }
}

/// The largest difference of any sample (alpha included) between two bitmaps of one size; Int.max for two sizes.
func largestDifference(_ a: Bitmap, _ b: Bitmap) -> Int {
    guard a.width == b.width, a.height == b.height else { return .max }
    var largest = 0
    for y in 0..<a.height {
        for x in 0..<a.width {
            let p = a[x, y], q = b[x, y]
            largest = max(largest, abs(Int(p.red) - Int(q.red)), abs(Int(p.green) - Int(q.green)),
                          abs(Int(p.blue) - Int(q.blue)), abs(Int(p.alpha) - Int(q.alpha)))
        }
    }
    return largest
}
