import Foundation
@testable import LanesImages
import LanesTesting
import Testing

/// Grey stays grey, 16 bits stay 16 bits, transparency in a JPEG is flattened: the layouts through the codecs (PNGs
/// written byte by byte by ``TinyPNG``, not libpng) and the processors.
@Suite("Pixel layouts: grey, 16-bit, flattening", .timeLimit(.minutes(5)), .heavy)
struct PixelLayoutTests {
    /// A ramp pattern at `bitDepth` for `channels` samples.
    static func sample(_ x: Int, _ y: Int, _ c: Int, depth: Int) -> Int {
        let top = (1 << depth) - 1
        return depth == 1 ? (x + y) % 2 : (x * 2_654_435_761 + y * 40503 + c * 97) % (top + 1)
    }

    @Test(arguments: [
        (0, 1, PixelLayout.grey8), (0, 8, .grey8), (0, 16, .grey16), (4, 8, .greyAlpha8), (4, 16, .greyAlpha16),
        (2, 8, .rgba8), (2, 16, .rgba16), (6, 16, .rgba16), (3, 8, .rgba8),
    ])
    func theProbeNamesTheStoredLayoutAndTheDecoderKeepsIt(colourType: Int, depth: Int, layout: PixelLayout) throws {
        let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colourType]!
        let png = TinyPNG.make(width: 13, height: 7, colourType: colourType, bitDepth: depth,
                               palette: colourType == 3 ? (0..<256).map { [UInt8($0), UInt8(255 - $0), 7] } : []) { x, y in
            (0..<channels).map { Self.sample(x, y, $0, depth: depth) }
        }
        #expect(try ImageDecoder().probe(png).storedLayout == layout)
        let kept = try ImageDecoder(keepsStoredLayout: true).decode(png)
        #expect(kept.layout == layout)
        let expanded = try ImageDecoder().decode(png)
        #expect(expanded.layout == .rgba8)
        #expect(kept.converted(to: .rgba8) == expanded)
        if colourType != 3 {
            for (x, y) in [(0, 0), (5, 3), (12, 6)] {
                for c in 0..<min(channels, layout.channels) {
                    let expected = Self.sample(x, y, c, depth: depth) * (depth == 1 ? 255 : 1)
                    #expect(kept.sample(x: x, y: y, channel: c) == expected)
                }
            }
        }
    }

    @Test func greyWithATransparentColourDecodesWithAlpha() throws {
        let png = TinyPNG.make(width: 4, height: 1, colourType: 0, bitDepth: 8, transparency: [0, 9]) { x, _ in [x * 3 + 6] }
        let bitmap = try ImageDecoder(keepsStoredLayout: true).decode(png)
        #expect(bitmap.layout == .greyAlpha8)
        #expect(bitmap.sample(x: 1, y: 0, channel: 1) == 0)   // grey 9 is the transparent one
        #expect(bitmap.sample(x: 2, y: 0, channel: 1) == 255)
    }

    @Test func aGreyJPEGDecodesToOneChannel() throws {
        let data = try Fixture.data("grey-100.jpg")
        #expect(try ImageDecoder().probe(data).storedLayout == .grey8)
        let grey = try ImageDecoder(keepsStoredLayout: true).decode(data)
        #expect(grey.layout == .grey8 && grey.pixels.allSatisfy { $0 == 100 })
        let thumb = try ImageDecoder(keepsStoredLayout: true).decode(data, targetSize: TargetSize(maxWidth: 4))
        #expect(thumb.layout == .grey8 && thumb.width == 4)
    }

    @Test(arguments: [PixelLayout.grey8, .greyAlpha8, .grey16, .greyAlpha16, .rgba16])
    func everyLayoutRoundTripsThroughPNG(layout: PixelLayout) throws {
        var state: UInt32 = 0x1234_5678
        let bytes = (0..<(9 * 5 * layout.bytesPerPixel)).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        let bitmap = Bitmap(width: 9, height: 5, layout: layout, pixels: bytes)
        let png = try ImageEncoder().encode(bitmap, as: .png())
        let info = try ImageDecoder().probe(png)
        #expect(info.bitDepth == layout.bitDepth)
        #expect(info.components == (layout.isGrey ? layout.channels : layout.channels))
        #expect(try ImageDecoder(keepsStoredLayout: true).decode(png) == bitmap)
    }

    @Test func conversionsAreExactWhereTheyCanBe() {
        let grey = Bitmap(width: 3, height: 1, layout: .grey8, pixels: [0, 77, 255])
        #expect(grey.converted(to: .rgba8).pixels == [0, 0, 0, 255, 77, 77, 77, 255, 255, 255, 255, 255])
        #expect(grey.converted(to: .rgba8).converted(to: .grey8) == grey)
        #expect(grey.converted(to: .grey16).converted(to: .grey8) == grey)
        #expect(grey.converted(to: .grey16).sample(x: 1, y: 0, channel: 0) == 77 * 257)
        // Transparent red flattened: on white it is white, on black black; half-transparent blue on black is dark.
        let logo = Bitmap(width: 2, height: 1, pixels: [255, 0, 0, 0, 0, 0, 255, 128])
        #expect(logo.converted(to: .grey8, background: .white).pixels[0] == 255)
        #expect(logo.converted(to: .grey8, background: .black).pixels == [0, 15])
        #expect(!logo.isOpaque && grey.isOpaque)
    }

    @Test func jpegFlattensTransparencyOnTheBackground() throws {
        // Left half: red hidden under alpha 0. Right half: opaque blue.
        let logo = makeBitmap(width: 32, height: 16) { x, _ in
            x < 16 ? RGBA(red: 255, green: 0, blue: 0, alpha: 0) : RGBA(red: 0, green: 0, blue: 255)
        }
        for (background, expected) in [(RGBA.white, 255), (RGBA.black, 0)] {
            let jpeg = try ImageEncoder().encode(logo, as: .jpeg(quality: 100, background: background))
            let decoded = try ImageDecoder().decode(jpeg)
            #expect(close(decoded[4, 8], RGBA(grey: UInt8(expected)), tolerance: 3), "\(decoded[4, 8])")
            #expect(close(decoded[28, 8], RGBA(red: 0, green: 0, blue: 255), tolerance: 6), "\(decoded[28, 8])")
        }
        let grey = Bitmap(width: 16, height: 16, layout: .greyAlpha8,
                          pixels: (0..<256).flatMap { $0 % 16 < 8 ? [200, 0] : [50, 255] })
        let jpeg = try ImageEncoder().encode(grey, as: .jpeg(quality: 100))
        #expect(try ImageDecoder().probe(jpeg).storedLayout == .grey8)
        let decoded = try ImageDecoder(keepsStoredLayout: true).decode(jpeg)
        #expect(abs(decoded.sample(x: 2, y: 5, channel: 0) - 255) <= 3)
        #expect(abs(decoded.sample(x: 13, y: 5, channel: 0) - 50) <= 3)
    }

    @Test func processorsKeepGreyAndSayWhichKeepSixteenBits() throws {
        let colour = noiseBitmap(width: 40, height: 30)
        let grey = colour.converted(to: .grey8)
        // Grey is processed as RGBA and folded back exactly: the same pixels as processing the RGBA spread of it.
        let processors: [any ImageProcessor] = [GaussianBlur(sigma: 2), TiltShift(), Resize(width: 17)]
        for processor in processors {
            let direct = try processor.process(grey)
            #expect(direct.layout == .grey8, "\(processor.identifier)")
            #expect(direct == (try processor.process(grey.converted(to: .rgba8))).converted(to: .grey8),
                    "\(processor.identifier)")
            #expect(try processor.process(grey.converted(to: .grey16)).layout == .grey8, "\(processor.identifier)")
        }
        // Greyscale keeps 16 bits; a grey input is returned as it is.
        let deep = colour.converted(to: .rgba16)
        let greyed = try Greyscale().process(deep)
        #expect(greyed.layout == .rgba16)
        let r = deep.sample(x: 3, y: 4, channel: 0), g = deep.sample(x: 3, y: 4, channel: 1)
        let b = deep.sample(x: 3, y: 4, channel: 2)
        #expect(greyed.sample(x: 3, y: 4, channel: 1) == (19595 * r + 38470 * g + 7471 * b + 32768) >> 16)
        #expect(try Greyscale().process(grey) == grey)
        // Orientation moves pixels whole in any layout.
        let turned = grey.converted(to: .greyAlpha16).oriented(.right)
        #expect(turned.layout == .greyAlpha16 && turned.width == 30)
        #expect(turned.converted(to: .grey8) == grey.oriented(.right))
    }
}
