import Foundation
import LanesImages
import LanesTesting
import Testing

/// Decoding real photos and hand-made PNG variants against independently computed values
/// (Pillow for the photos, the writer's own samples for the synthetic PNGs).
@Suite(.timeLimit(.minutes(5)), .heavy) struct DecoderTests {
    let decoder = ImageDecoder()

    @Test func decodesRGBPNGPhoto() throws {
        let bitmap = try decoder.decode(Fixture.data("chelsea.png"))
        #expect(bitmap.width == 451 && bitmap.height == 300)
        #expect(bitmap.bytesPerRow == 451 * 4)
        #expect(rgb(bitmap, 0, 0) == [143, 120, 104])
        #expect(rgb(bitmap, 450, 299) == [162, 138, 128])
        #expect(rgb(bitmap, 225, 150) == [190, 150, 124])
        #expect(rgb(bitmap, 150, 75) == [182, 142, 116])
        #expect(channelSums(bitmap) == [19_980_169, 15_078_438, 11_743_750])
        #expect(bitmap.withUnsafePixels { p in stride(from: 3, to: p.count, by: 4).allSatisfy { p[$0] == 255 } })
    }

    @Test func decodesGreyPNGPhotoToRGBA() throws {
        let bitmap = try decoder.decode(Fixture.bytes("camera.png"))
        #expect(bitmap.width == 512 && bitmap.height == 512)
        #expect(bitmap[0, 0] == RGBA(grey: 200))
        #expect(bitmap[511, 511] == RGBA(grey: 149))
        #expect(bitmap[256, 256] == RGBA(grey: 14))
        #expect(channelSums(bitmap) == [33_832_495, 33_832_495, 33_832_495])
    }

    @Test func decodesBaselineJPEGPhoto() throws {
        let bitmap = try decoder.decode(Fixture.data("rocket.jpg"))
        #expect(bitmap.width == 640 && bitmap.height == 427)
        #expect(rgb(bitmap, 0, 0) == [17, 33, 58])
        #expect(rgb(bitmap, 639, 426) == [83, 61, 37])
        #expect(rgb(bitmap, 320, 213) == [132, 123, 114])
        #expect(channelSums(bitmap) == [14_283_182, 16_750_506, 22_483_056])
        #expect(bitmap[5, 5].alpha == 255)
    }

    @Test func decodesJPEGWithExifHeader() throws {
        let data = try Fixture.data("hubble_deep_field.jpg")
        let info = try decoder.probe(data)
        #expect(info == ImageInfo(format: .jpeg, width: 1000, height: 872, orientation: .up, components: 3))
        let bitmap = try decoder.decode(data)
        #expect(rgb(bitmap, 500, 436) == [47, 34, 28])
        #expect(channelSums(bitmap) == [16_203_335, 17_258_561, 16_646_155])
    }

    @Test func decodesProgressiveJPEG() throws {
        let data = try Fixture.data("chelsea-progressive.jpg")
        #expect(try decoder.probe(data).isProgressive)
        let bitmap = try decoder.decode(data)
        #expect(bitmap.width == 64 && bitmap.height == 48)
        #expect(rgb(bitmap, 0, 0) == [70, 39, 18])
        #expect(rgb(bitmap, 32, 24) == [177, 133, 106])
        #expect(channelSums(bitmap) == [450_463, 331_312, 255_311])
    }

    @Test func decodesGreyscaleJPEG() throws {
        let bitmap = try decoder.decode(Fixture.data("grey-100.jpg"))
        #expect(bitmap.width == 16 && bitmap.height == 8)
        #expect(bitmap.withUnsafePixels { Array($0) } == Bitmap(width: 16, height: 8, filledWith: RGBA(grey: 100)).pixels)
    }

    @Test func decodesAdobeCMYKJPEG() throws {
        let data = try Fixture.data("cmyk-red-grey.jpg")
        #expect(try decoder.probe(data).components == 4)
        let bitmap = try decoder.decode(data)
        // Top half: magenta + yellow ink = red; bottom half: 50% black ink = mid grey.
        #expect(close(bitmap[8, 2], RGBA(red: 255, green: 0, blue: 0), tolerance: 2))
        #expect(close(bitmap[8, 13], RGBA(grey: 127), tolerance: 2))
    }

    // MARK: PNG variants written byte by byte

    @Test func decodesPalettePNGWithTransparency() throws {
        let palette: [[UInt8]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [10, 20, 30]]
        let png = TinyPNG.make(width: 5, height: 2, colourType: 3, bitDepth: 2, palette: palette,
                               transparency: [255, 128, 0]) { x, y in [(x + y) % 4] }
        let bitmap = try decoder.decode(png)
        #expect(bitmap[0, 0] == RGBA(red: 255, green: 0, blue: 0, alpha: 255))
        #expect(bitmap[1, 0] == RGBA(red: 0, green: 255, blue: 0, alpha: 128))
        #expect(bitmap[2, 0] == RGBA(red: 0, green: 0, blue: 255, alpha: 0))
        #expect(bitmap[3, 0] == RGBA(red: 10, green: 20, blue: 30, alpha: 255)) // beyond tRNS: opaque
        #expect(bitmap[4, 1] == RGBA(red: 0, green: 255, blue: 0, alpha: 128))
    }

    @Test func decodesOneBitGreyPNG() throws {
        let png = TinyPNG.make(width: 11, height: 3, colourType: 0, bitDepth: 1) { x, y in [(x + y) % 2] }
        let bitmap = try decoder.decode(png)
        for y in 0..<3 {
            for x in 0..<11 {
                #expect(bitmap[x, y] == RGBA(grey: (x + y) % 2 == 0 ? 0 : 255))
            }
        }
    }

    @Test func decodesSixteenBitGreyPNGWithRounding() throws {
        let values = [0, 257 * 100, 65535, 32896, 128, 65407]
        let png = TinyPNG.make(width: 3, height: 2, colourType: 0, bitDepth: 16) { x, y in [values[y * 3 + x]] }
        let bitmap = try decoder.decode(png)
        for (i, value) in values.enumerated() {
            let expected = UInt8((Double(value) * 255 / 65535).rounded())
            #expect(bitmap[i % 3, i / 3] == RGBA(grey: expected), "sample \(value)")
        }
    }

    @Test func decodesInterlacedSixteenBitRGBAPNG() throws {
        // 9 x 9 exercises every Adam7 pass, including partial ones.
        let png = TinyPNG.make(width: 9, height: 9, colourType: 6, bitDepth: 16, interlaced: true) { x, y in
            [x * 7000, y * 7000, (x * y) * 800, 65535 - x * 257]
        }
        #expect(try decoder.probe(png).isProgressive)
        let bitmap = try decoder.decode(png)
        func eight(_ v: Int) -> UInt8 { UInt8((Double(v) * 255 / 65535).rounded()) }
        for y in 0..<9 {
            for x in 0..<9 {
                let expected = RGBA(red: eight(x * 7000), green: eight(y * 7000), blue: eight(x * y * 800),
                                    alpha: eight(65535 - x * 257))
                #expect(bitmap[x, y] == expected, "pixel (\(x), \(y))")
            }
        }
    }

    @Test func decodesGreyAlphaAndGreyTransparencyPNGs() throws {
        let greyAlpha = TinyPNG.make(width: 2, height: 1, colourType: 4, bitDepth: 8) { x, _ in [x == 0 ? 30 : 200, x == 0 ? 255 : 7] }
        let decodedAlpha = try decoder.decode(greyAlpha)
        #expect(decodedAlpha[0, 0] == RGBA(grey: 30, alpha: 255))
        #expect(decodedAlpha[1, 0] == RGBA(grey: 200, alpha: 7))

        let keyed = TinyPNG.make(width: 3, height: 1, colourType: 0, bitDepth: 8, transparency: [0, 77]) { x, _ in [[77, 78, 0][x]] }
        let decodedKeyed = try decoder.decode(keyed)
        #expect(decodedKeyed[0, 0].alpha == 0)
        #expect(decodedKeyed[1, 0] == RGBA(grey: 78, alpha: 255))
        #expect(decodedKeyed[2, 0] == RGBA(grey: 0, alpha: 255))
    }

    @Test func decodesRGBPNGWithColourKey() throws {
        let png = TinyPNG.make(width: 2, height: 1, colourType: 2, bitDepth: 8,
                               transparency: [0, 1, 0, 2, 0, 3]) { x, _ in x == 0 ? [1, 2, 3] : [1, 2, 4] }
        let bitmap = try decoder.decode(png)
        #expect(bitmap[0, 0].alpha == 0)
        #expect(bitmap[1, 0] == RGBA(red: 1, green: 2, blue: 4, alpha: 255))
    }

    @Test func sniffsFormatFromContentNotFileName() throws {
        // A JPEG saved under a .png name is still decoded as a JPEG.
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("lanes-images-\(UUID().uuidString)-photo.png")
        try Fixture.data("rocket.jpg").write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let data = try Data(contentsOf: url)
        #expect(ImageFormat.sniff(data) == .jpeg)
        #expect(try decoder.probe(data).format == .jpeg)
        #expect(try decoder.decode(data).width == 640)
    }

    @Test func decodingProtocolHasDefaultLimit() throws {
        let decoding: any ImageDecoding = ImageDecoder()
        let bitmap = try decoding.decode(Fixture.data("grey-100.jpg"))
        #expect(bitmap.width == 16)
    }
}
