import Foundation
import LanesImages
import Testing

/// The incremental decoder fed a file in small chunks: previews of a progressive JPEG's scans and an interlaced PNG's
/// passes, final pixels equal to the whole decoders', baseline rows before the last byte, and hostile input failing
/// in one line.
@Suite struct IncrementalDecoderTests {
    /// Feeds `data` in `chunk`-byte pieces, rendering a preview whenever a new one is ready; returns them and the
    /// final image.
    private func decodeInChunks(_ data: Data, chunk: Int, maxPixels: Int = ImageDecoder.defaultMaxPixels) throws
        -> (previews: [Bitmap], image: Bitmap) {
        let decoder = IncrementalDecoder(previews: true, maxPixels: maxPixels)
        var previews: [Bitmap] = []
        var shown = 0
        var offset = 0
        while offset < data.count {
            let end = min(data.count, offset + chunk)
            try decoder.append(data.subdata(in: offset..<end), isLast: end == data.count)
            offset = end
            if decoder.previewsReady > shown {
                shown = decoder.previewsReady
                previews.append(try decoder.preview())
            }
        }
        return (previews, try decoder.decodeRemainingImage())
    }

    @Test func progressiveJPEGPreviewsEachScanAndEndsWithTheWholeDecodersPixels() throws {
        let jpeg = try Fixture.data("progressive/chelsea-progressive.jpg")
        let (previews, image) = try decodeInChunks(jpeg, chunk: 700)
        let whole = try ImageDecoder().decode(jpeg)
        #expect(image.pixels == whole.pixels)
        let reference = try ImageDecoder().decode(Fixture.data("progressive/chelsea-progressive.jpg.png"))
        #expect(image.pixels == reference.pixels) // djpeg's decode
        #expect(previews.count >= 3)
        #expect(previews.allSatisfy { $0.width == image.width && $0.height == image.height })
        // Each scan refines: the first preview differs from the final image, and the differences shrink.
        let errors = previews.map { meanError($0, image) }
        #expect(errors.first! > errors.last!)
        #expect(errors.first! > 0)
    }

    @Test func interlacedPNGPreviewsPassesAndEndsWithTheWholeDecodersPixels() throws {
        let png = try Fixture.data("progressive/chelsea-interlaced.png")
        let (previews, image) = try decodeInChunks(png, chunk: 4096)
        #expect(image.pixels == (try ImageDecoder().decode(png)).pixels)
        #expect(previews.count >= 2)
        let errors = previews.map { meanError($0, image) }
        #expect(errors.first! > errors.last!)
    }

    @Test func baselineRowsArriveBeforeTheLastByte() throws {
        let png = try Fixture.data("chelsea.png")
        let decoder = IncrementalDecoder(previews: false)
        try decoder.append(png.prefix(png.count / 2))
        #expect(decoder.hasHeader && !decoder.isProgressive)
        var rows = [UInt8](repeating: 0, count: decoder.width * 4 * decoder.height)
        let got = try rows.withUnsafeMutableBytes {
            try decoder.readRows(decoder.height, into: $0.baseAddress!, bytesPerRow: decoder.width * 4)
        }
        #expect(got > 0 && got < decoder.height)
        try decoder.append(png.suffix(from: png.count / 2), isLast: true)
        var y = got
        while y < decoder.height {
            let more = try rows.withUnsafeMutableBytes {
                try decoder.readRows(decoder.height - y, into: $0.baseAddress! + y * decoder.width * 4,
                                     bytesPerRow: decoder.width * 4)
            }
            #expect(more > 0)
            y += more
        }
        #expect(rows == (try ImageDecoder().decode(png)).pixels)
    }

    @Test(arguments: ["progressive/chelsea-progressive.jpg", "progressive/chelsea-interlaced.png", "chelsea.png",
                      "rocket.jpg"])
    func truncatedInputFailsAsTruncated(_ name: String) throws {
        let data = try Fixture.data(name)
        #expect(throws: ImageError.truncated) {
            _ = try decodeInChunks(data.prefix(data.count * 2 / 3), chunk: 1000)
        }
    }

    @Test(arguments: ["progressive/chelsea-progressive.jpg", "progressive/chelsea-interlaced.png"])
    func headerOverTheLimitFailsBeforeDecoding(_ name: String) throws {
        let data = try Fixture.data(name)
        #expect(throws: ImageError.self) { _ = try decodeInChunks(data, chunk: 512, maxPixels: 1000) }
    }

    @Test func otherFormatsAreRefused() throws {
        let decoder = IncrementalDecoder()
        #expect(throws: ImageError.self) { try decoder.append(try Fixture.data("formats/photo-lossy.webp")) }
    }
}

/// The mean absolute difference of the RGB samples of two bitmaps of one size.
func meanError(_ a: Bitmap, _ b: Bitmap) -> Double {
    var total = 0
    for i in 0..<a.pixels.count where i % 4 != 3 {
        total += abs(Int(a.pixels[i]) - Int(b.pixels[i]))
    }
    return Double(total) / Double(a.pixels.count / 4 * 3)
}
