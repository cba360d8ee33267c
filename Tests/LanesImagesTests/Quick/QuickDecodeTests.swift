import Foundation
import LanesImages
import Testing

/// `ImageDecoder.decodeQuick`: the same picture, coarser and cheaper, never larger than the target, and a clear
/// error for bad bytes.
@Suite("Quick renderings", .timeLimit(.minutes(5)))
struct QuickDecodeTests {
    let target = TargetSize(maxWidth: 160, maxHeight: 120)

    /// The mean of each channel (R, G, B) per pixel.
    func means(_ bitmap: Bitmap) -> [Double] {
        channelSums(bitmap).prefix(3).map { Double($0) / Double(bitmap.width * bitmap.height) }
    }

    @Test("a JPEG is decoded at 1/8 by DCT scaling, then fits the target; the same picture as the full decode")
    func jpegAtAnEighth() throws {
        let data = try Fixture.data("rocket.jpg")   // 640 x 427
        let quick = try ImageDecoder().decodeQuick(data, targetSize: target)
        #expect(quick.width == 80 && quick.height == 54)   // 640 / 8, 427 / 8 rounded up
        let full = try ImageDecoder().decode(data, targetSize: target)
        for (a, b) in zip(means(quick), means(full)) { #expect(abs(a - b) < 8) }
    }

    @Test("a PNG is sampled as it decodes, to the target's size; the same picture as the full decode")
    func pngSampled() throws {
        let data = try Fixture.data("chelsea.png")   // 451 x 300
        let quick = try ImageDecoder().decodeQuick(data, targetSize: target)
        let full = try ImageDecoder().decode(data, targetSize: target)
        #expect(quick.width == full.width && quick.height == full.height)
        for (a, b) in zip(means(quick), means(full)) { #expect(abs(a - b) < 8) }
        // A grey PNG comes out RGBA8 as well.
        let grey = try ImageDecoder().decodeQuick(try Fixture.data("camera.png"), targetSize: target)
        #expect(grey.layout == .rgba8 && grey.width == 120 && grey.height == 120)
    }

    @Test("the Exif orientation is applied, as in the full decode")
    func upright() throws {
        let jpeg = try Fixture.bytes("rocket.jpg")
        let rotated = Data(ExifSegment.inserting(ExifSegment.orientation(6, bigEndian: true), into: jpeg))
        let quick = try ImageDecoder().decodeQuick(rotated, targetSize: target)
        #expect(quick.height > quick.width)   // turned a quarter: portrait
        #expect(quick.width <= target.maxWidth && quick.height <= target.maxHeight)
    }

    @Test("a small image is never enlarged; no target gives an eighth-size rendering")
    func neverEnlarged() throws {
        let grey = try ImageDecoder().decodeQuick(try Fixture.data("grey-100.jpg"), targetSize: target)   // 16 x 8
        #expect(grey.width <= 16 && grey.height <= 8)
        let whole = try ImageDecoder().decodeQuick(try Fixture.data("rocket.jpg"), targetSize: nil)
        #expect(whole.width == 80)
    }

    @Test("bad bytes fail with the decoder's error: truncated, not an image, over the pixel limit")
    func badInput() throws {
        let png = try Fixture.data("chelsea.png")
        #expect(throws: ImageError.self) { try ImageDecoder().decodeQuick(png.prefix(png.count / 2), targetSize: target) }
        #expect(throws: ImageError.self) { try ImageDecoder().decodeQuick(Data("hello".utf8), targetSize: target) }
        #expect(throws: ImageError.tooLarge(width: 451, height: 300, limit: 1000)) {
            try ImageDecoder().decodeQuick(png, targetSize: target, maxPixels: 1000)
        }
        let jpeg = try Fixture.data("rocket.jpg")
        #expect(throws: ImageError.self) { try ImageDecoder().decodeQuick(jpeg.prefix(300), targetSize: target) }
    }
    @Test("a JPEG's Exif thumbnail stands in when it covers a quarter of the target, upright; not when it is too small")
    func exifThumbnail() throws {
        let (file, thumbnail) = try ExifThumbnailTests.photo(orientation: 1)   // 64 x 48, thumbnail 16 x 12
        let small = TargetSize(maxWidth: 64, maxHeight: 48)                    // a quarter: 16 x 12
        #expect(try ImageDecoder().decodeQuick(file, targetSize: small) == (try ImageDecoder().decode(thumbnail)))
        let (rotated, _) = try ExifThumbnailTests.photo(orientation: 6)
        let upright = try ImageDecoder().decodeQuick(rotated, targetSize: TargetSize(maxWidth: 48, maxHeight: 64))
        #expect(upright.width == 12 && upright.height == 16)
        // A target whose quarter the thumbnail does not cover decodes the photo instead.
        let large = try ImageDecoder().decodeQuick(file, targetSize: TargetSize(maxWidth: 256, maxHeight: 192))
        #expect(large != (try ImageDecoder().decode(thumbnail)))
    }
}
