import Foundation
import LanesImages
import LanesTesting
import Testing

/// PNG and JPEG encoding, checked by decoding the result again.
@Suite(.timeLimit(.minutes(5)), .heavy) struct EncoderTests {
    let encoder = ImageEncoder()
    let decoder = ImageDecoder()

    @Test func pngRoundTripIsExactWithTransparency() throws {
        let original = noiseBitmap(width: 37, height: 23, opaque: false)
        let png = try encoder.encode(original, as: .png())
        #expect(ImageFormat.sniff(png) == .png)
        #expect(try decoder.probe(png).components == 4)
        #expect(try decoder.decode(png) == original)
    }

    @Test func opaquePNGIsWrittenAsRGBAndRoundTrips() throws {
        let original = noiseBitmap(width: 64, height: 9)
        let png = try encoder.encode(original, as: .png(compressionLevel: 9))
        #expect(try decoder.probe(png).components == 3)
        #expect(try decoder.decode(png) == original)
        let photo = try decoder.decode(Fixture.data("chelsea.png"))
        #expect(try decoder.decode(encoder.encode(photo, as: .png(compressionLevel: 1))) == photo)
    }

    @Test func compressionLevelChangesSizeNotPixels() throws {
        let photo = try decoder.decode(Fixture.data("camera.png"))
        let stored = try encoder.encode(photo, as: .png(compressionLevel: 0))
        let smallest = try encoder.encode(photo, as: .png(compressionLevel: 9))
        #expect(stored.count > photo.width * photo.height * 3) // no compression at level 0
        #expect(smallest.count < stored.count / 2)
        #expect(try decoder.decode(stored) == decoder.decode(smallest))
    }

    @Test func jpegOfFlatColourDecodesToThatColour() throws {
        let colour = RGBA(red: 200, green: 60, blue: 30)
        let jpeg = try encoder.encode(Bitmap(width: 40, height: 24, filledWith: colour), as: .jpeg(quality: 90))
        let info = try decoder.probe(jpeg)
        #expect(info.format == .jpeg && info.width == 40 && info.height == 24)
        let decoded = try decoder.decode(jpeg)
        for (x, y) in [(0, 0), (39, 23), (20, 12)] {
            #expect(close(decoded[x, y], colour, tolerance: 3), "pixel (\(x), \(y)) is \(decoded[x, y])")
        }
    }

    @Test func jpegQualityTradesSizeForFidelity() throws {
        let photo = try decoder.decode(Fixture.data("chelsea.png"))
        let low = try encoder.encode(photo, as: .jpeg(quality: 20))
        let high = try encoder.encode(photo, as: .jpeg(quality: 95))
        #expect(low.count < high.count)
        func error(_ data: Data) throws -> Double {
            let decoded = try decoder.decode(data)
            var total = 0
            for i in 0..<photo.pixels.count where i % 4 != 3 {
                total += abs(Int(decoded.pixels[i]) - Int(photo.pixels[i]))
            }
            return Double(total) / Double(photo.pixelCount * 3)
        }
        let lowError = try error(low), highError = try error(high)
        #expect(highError < lowError)
        #expect(highError < 3)
    }

    @Test func outOfRangeSettingsAreInvalidArguments() {
        let bitmap = Bitmap(width: 2, height: 2, filledWith: .white)
        for format in [ImageEncoder.Format.jpeg(quality: 0), .jpeg(quality: 101), .png(compressionLevel: 10)] {
            #expect(throws: ImageError.self) { try encoder.encode(bitmap, as: format) }
            do {
                _ = try encoder.encode(bitmap, as: format)
            } catch ImageError.invalidArgument(let reason) {
                #expect(!reason.isEmpty)
            } catch {
                Issue.record("expected .invalidArgument, got \(error)")
            }
        }
    }

    @Test(arguments: ImageEncoder.PNGFilter.allCases)
    func everyPNGFilterRoundTripsLosslessly(filter: ImageEncoder.PNGFilter) throws {
        let photo = try decoder.decode(Fixture.data("chelsea.png"))
        let translucent = noiseBitmap(width: 45, height: 17, opaque: false)
        for level in [0, 1, 6, 9] {
            #expect(try decoder.decode(encoder.encode(photo, as: .png(compressionLevel: level, filter: filter))) == photo,
                    "level \(level)")
            #expect(try decoder.decode(encoder.encode(translucent, as: .png(compressionLevel: level, filter: filter)))
                    == translucent, "level \(level)")
        }
    }

    @Test func pngFilterChangesTheBytes() throws {
        // Smooth ramps: raw rows barely repeat, predicted ones are nearly constant.
        var photo = Bitmap(width: 200, height: 120)
        for y in 0..<120 {
            for x in 0..<200 {
                photo[x, y] = RGBA(red: UInt8(x), green: UInt8(y * 2), blue: UInt8((x + 3 * y) % 256))
            }
        }
        var sizes: [ImageEncoder.PNGFilter: Int] = [:]
        for filter in ImageEncoder.PNGFilter.allCases {
            sizes[filter] = try encoder.encode(photo, as: .png(compressionLevel: 6, filter: filter)).count
        }
        // libpng's per-row choice beats no filter on smooth content.
        #expect(sizes[.adaptive]! < sizes[.none]!)
        #expect(Set(sizes.values).count > 1)
        // The default is adaptive, as before the option existed.
        #expect(try encoder.encode(photo, as: .png()) == encoder.encode(photo, as: .png(compressionLevel: 6, filter: .adaptive)))
        #expect(ImageEncoder.PNGFilter(rawValue: "paeth") == .paeth)
    }

    @Test func largeJPEGGrowsTheOutputBuffer() throws {
        let noise = noiseBitmap(width: 400, height: 300)
        let jpeg = try encoder.encode(noise, as: .jpeg(quality: 100))
        #expect(jpeg.count > 2 * 65_536) // several windows of the growable buffer
        #expect(jpeg.prefix(2) == Data([0xFF, 0xD8]) && jpeg.suffix(2) == Data([0xFF, 0xD9]))
        let decoded = try decoder.decode(jpeg)
        #expect(decoded.width == 400 && decoded.height == 300)
    }
}
