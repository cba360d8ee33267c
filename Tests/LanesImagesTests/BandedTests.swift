import Foundation
import LanesImages
import LanesTesting
import Testing

/// Banded processing (decoder rows → resize / blur / tilt-shift stages) against the whole-bitmap
/// operations: the same bytes, on PNG and JPEG, odd sizes, and reads that cut bands anywhere.
@Suite(.timeLimit(.minutes(5)), .heavy) struct BandedTests {
    /// Reads all of `source` in chunks cycling through `chunks` (band boundaries fall anywhere).
    func drain(_ source: any RowSource, chunks: [Int] = [7, 1, 130, 64]) throws -> Bitmap {
        var pixels = [UInt8](repeating: 0, count: source.width * source.height * 4)
        var y = 0, i = 0
        try pixels.withUnsafeMutableBytes { buffer in
            while y < source.height {
                let count = min(chunks[i % chunks.count], source.height - y)
                try source.readRows(count, into: buffer.baseAddress! + y * source.width * 4, bytesPerRow: source.width * 4)
                y += count
                i += 1
            }
        }
        return Bitmap(width: source.width, height: source.height, pixels: pixels)
    }

    static let sizes: [(Int, Int)] = [(301, 257), (257, 131), (5, 300), (600, 3), (1, 1)]

    @Test(arguments: [0.7, 3, 8])
    func blurRowsEqualWholeBlur(sigma: Double) throws {
        for (width, height) in Self.sizes {
            for opaque in [true, false] {
                let bitmap = noiseBitmap(width: width, height: height, seed: UInt32(width * 31 + height), opaque: opaque)
                let whole = try GaussianBlur(sigma: sigma).process(bitmap)
                let banded = try drain(BlurRows(BitmapRows(bitmap), sigma: sigma))
                #expect(banded == whole, "\(width)x\(height) σ \(sigma) opaque \(opaque)")
            }
        }
    }

    @Test func tiltShiftRowsEqualWholeTiltShift() throws {
        let shifts = [TiltShift(), TiltShift(focusCenter: 0.3, focusHeight: 0.1, transition: 0.1, sigma: 4),
                      TiltShift(sigma: 0), TiltShift(focusCenter: 0.5, focusHeight: 2, transition: 0, sigma: 3)]
        for (width, height) in Self.sizes {
            let bitmap = noiseBitmap(width: width, height: height, seed: UInt32(height), opaque: width % 2 == 1)
            for shift in shifts {
                let whole = try shift.process(bitmap)
                let banded = try drain(BlurRows(BitmapRows(bitmap), tiltShift: shift))
                #expect(banded == whole, "\(width)x\(height) \(shift.identifier)")
            }
        }
    }

    @Test func resizeRowsEqualWholeResize() throws {
        let bitmap = noiseBitmap(width: 301, height: 257, seed: 7, opaque: false)
        for (width, height) in [(100, 67), (37, 250), (301, 257), (640, 300), (1, 1), (300, 2), (3, 500)] {
            let whole = try Resize(width: width, height: height).process(bitmap)
            let banded = try drain(ResizeRows(BitmapRows(bitmap), width: width, height: height))
            #expect(banded == whole, "\(width)x\(height)")
        }
    }

    /// The row decoder hands out the whole decoder's pixels, from memory and from a file descriptor.
    @Test(arguments: ["chelsea.png", "camera.png", "rocket.jpg", "chelsea-progressive.jpg", "cmyk-red-grey.jpg", "grey-100.jpg"])
    func rowDecoderEqualsWholeDecoder(name: String) throws {
        let data = try Fixture.data(name)
        let whole = try ImageDecoder().decode(data)
        #expect(try drain(ImageRowDecoder(data: data)) == whole)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lanes-bands-\(UUID().uuidString)")
        try data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let descriptor = open(url.path, O_RDONLY)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        #expect(try drain(ImageRowDecoder(fileDescriptor: descriptor)) == whole)
    }

    @Test func interlacedPNGIsDecodedWholeAndMatches() throws {
        let png = TinyPNG.make(width: 13, height: 11, colourType: 2, bitDepth: 8, interlaced: true) { x, y in
            [x * 19 % 256, y * 23 % 256, (x * y) % 256]
        }
        let decoder = try ImageRowDecoder(data: Data(png))
        #expect(decoder.holdsWholeImage)
        #expect(decoder.retainedBytes == 13 * 11 * 4)
        #expect(try drain(decoder, chunks: [3]) == ImageDecoder().decode(png))
    }

    /// Decoded rows blurred and tilt-shifted band by band equal the whole decode, then the whole operation.
    @Test(arguments: ["chelsea.png", "rocket.jpg"])
    func decodedBandsEqualWholeOperations(name: String) throws {
        let data = try Fixture.data(name)
        let whole = try ImageDecoder().decode(data)
        #expect(try drain(BlurRows(ImageRowDecoder(data: data), sigma: 5)) == GaussianBlur(sigma: 5).process(whole))
        #expect(try drain(BlurRows(ImageRowDecoder(data: data), tiltShift: TiltShift())) == TiltShift().process(whole))
        let resized = try drain(ResizeRows(ImageRowDecoder(data: data), width: 151, height: 99))
        #expect(resized == (try Resize(width: 151, height: 99).process(whole)))
    }

    /// A resized decode (now banded) equals the DCT-scaled decode resized as a whole.
    @Test(arguments: ["chelsea.png", "rocket.jpg", "chelsea-progressive.jpg"])
    func resizedDecodeEqualsWholeResize(name: String) throws {
        let data = try Fixture.data(name)
        let info = try ImageDecoder().probe(data)
        let target = TargetSize(maxWidth: 97, maxHeight: 97)
        let fitted = target.fittedSize(width: info.width, height: info.height)
        let denominator = info.format == .jpeg
            ? ImageDecoder.jpegScaleDenominator(width: info.width, height: info.height, targetWidth: fitted.width,
                                                targetHeight: fitted.height) : 1
        let scaled = try drain(ImageRowDecoder(data: data, scaleDenominator: denominator))
        let reference = try Resize(width: fitted.width, height: fitted.height).process(scaled)
        #expect(try ImageDecoder().decode(data, targetSize: target) == reference)
    }

    // MARK: Memory, by shape

    /// A blur pulls its input only `r` rows ahead of what it hands out; a resize only its taps.
    @Test func stagesPullOnlyWhatTheyNeed() throws {
        let data = try Fixture.data("chelsea.png") // 451 x 300
        let decoder = try ImageRowDecoder(data: data)
        #expect(decoder.retainedBytes == 451 * 4 * 2) // libpng's row and previous row
        let blur = try BlurRows(decoder, sigma: 3)    // r = 9
        var row = [UInt8](repeating: 0, count: 451 * 4)
        for k in 1...40 {
            try row.withUnsafeMutableBytes { try blur.readRows(1, into: $0.baseAddress!, bytesPerRow: 451 * 4) }
            #expect(decoder.rowsRead == k + 9)
        }
        // What a stage holds depends on the width and σ, never on the height.
        let tall = try BlurRows(BitmapRows(noiseBitmap(width: 451, height: 3000)), sigma: 3)
        #expect(tall.retainedBytes == blur.retainedBytes)
        #expect(tall.retainedBytes < 451 * 3000 * 4 / 8)

        let source = try ImageRowDecoder(data: data)
        let resize = try ResizeRows(source, width: 45, height: 30)   // 10 source rows per output row
        for k in 1...5 {
            var small = [UInt8](repeating: 0, count: 45 * 4)
            try small.withUnsafeMutableBytes { try resize.readRows(1, into: $0.baseAddress!, bytesPerRow: 45 * 4) }
            #expect(source.rowsRead == k * 10)
        }
        let tallResize = try ResizeRows(BitmapRows(noiseBitmap(width: 451, height: 3000)), width: 45, height: 300)
        #expect(tallResize.retainedBytes == resize.retainedBytes)
        #expect(resize.retainedBytes == 10 * 45 * 16 + 451 * 20) // 10 Float rows of taps, one input row
    }

    /// The pipeline's reservation for a resized decode is what the decode holds: result + decoder rows + ring.
    @Test(arguments: ["chelsea.png", "rocket.jpg"])
    func reservationEqualsWhatTheDecodeHolds(name: String) throws {
        let data = try Fixture.data(name)
        let info = try ImageDecoder().probe(data)
        let target = TargetSize(maxWidth: 64, maxHeight: 64)
        let fitted = target.fittedSize(width: info.width, height: info.height)
        let denominator = info.format == .jpeg
            ? ImageDecoder.jpegScaleDenominator(width: info.width, height: info.height, targetWidth: fitted.width,
                                                targetHeight: fitted.height) : 1
        let decoder = try ImageRowDecoder(data: data, scaleDenominator: denominator)
        let resize = try ResizeRows(decoder, width: fitted.width, height: fitted.height)
        let held = fitted.width * fitted.height * 4 + resize.retainedBytesInChain
        #expect(ImageDecoder.workingSetBytes(for: info, targetSize: target) == held)
        #expect(held < info.width * info.height * 4 / 4) // far below the whole decoded image
    }

    /// The process stage reserves what the processors hold: their output and their rings, not a second image.
    @Test func processorWorkingSetsAreWhatTheyHold() {
        let bitmap = Bitmap(width: 2000, height: 1500, filledWith: .white)
        let blur = GaussianBlur(sigma: 8).workingSetBytes(for: bitmap)
        #expect(blur > bitmap.byteCount && blur < bitmap.byteCount + (1 << 20)) // rings: 49 rows of a 256-px strip
        #expect(TiltShift().workingSetBytes(for: bitmap) < blur)                  // σ 6: a smaller ring
        #expect(Resize(width: 1000).workingSetBytes(for: bitmap) == 1000 * 750 * 4 + 2 * 1000 * 16 + 2000 * 20)
        #expect(Greyscale().workingSetBytes(for: bitmap) == bitmap.byteCount)
        #expect(ProcessorChain(GaussianBlur(sigma: 8), Greyscale()).workingSetBytes(for: bitmap) == 2 * bitmap.byteCount)
        #expect(GaussianBlur(sigma: 0).workingSetBytes(for: bitmap) == 0)
    }

    @Test func truncatedAndHostileRowsFailCleanly() throws {
        let data = try Fixture.data("chelsea.png")
        let cut = try ImageRowDecoder(data: data.prefix(data.count / 2))
        #expect(throws: ImageError.truncated) { try drain(cut) }
        let jpeg = try Fixture.data("rocket.jpg")
        #expect(throws: ImageError.self) { try drain(ImageRowDecoder(data: jpeg.prefix(jpeg.count / 3))) }
        #expect(throws: ImageError.self) { try ImageRowDecoder(data: data, maxPixels: 1000) }
        #expect(throws: ImageError.self) { try ImageRowDecoder(data: data, scaleDenominator: 2) }
        let decoder = try ImageRowDecoder(data: data)
        var row = [UInt8](repeating: 0, count: 8)
        #expect(throws: ImageError.self) { // a row buffer too small
            try row.withUnsafeMutableBytes { try decoder.readRows(1, into: $0.baseAddress!, bytesPerRow: 8) }
        }
    }
}

/// The band-by-band PNG encoder (decode + process on the caller's thread, encoding on a second one).
@Suite(.timeLimit(.minutes(5)), .heavy) struct BandedEncodingTests {
    @Test(arguments: [1, 7, 64, 1000])
    func bandedPNGEqualsWholePipeline(bandRows: Int) throws {
        let data = try Fixture.data("chelsea.png")
        let (png, count) = try ImageEncoder().encodePNG(rowsOf: BlurRows(ImageRowDecoder(data: data), sigma: 4),
                                                        bandRows: bandRows)
        #expect(count == png.count)
        #expect(try ImageDecoder().decode(png) == GaussianBlur(sigma: 4).process(ImageDecoder().decode(data)))
        #expect(try ImageDecoder().probe(png).components == 3) // an opaque source is written as RGB
    }

    @Test func aFailingSourceStopsTheEncoderCleanly() throws {
        let data = try Fixture.data("chelsea.png")
        #expect(throws: ImageError.truncated) {
            try ImageEncoder().encodePNG(rowsOf: BlurRows(ImageRowDecoder(data: data.prefix(data.count / 2)), sigma: 4))
        }
        #expect(throws: ImageError.self) { // a bad level is refused before any row is read
            try ImageEncoder().encodePNG(rowsOf: ImageRowDecoder(data: data), compressionLevel: 12)
        }
    }
}

/// The "Images in bands" article's and the row types' examples, compiled and run.
@Suite(.timeLimit(.minutes(5)), .heavy) struct BandedDocumentationTests {
    @Test func examplesRun() throws {
        let data = try Fixture.data("chelsea.png")
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lanes-bands-doc-\(UUID().uuidString).png")
        try data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let descriptor = open(url.path, O_RDONLY)
        defer { close(descriptor) }
        // --- the article
        let decoder = try ImageRowDecoder(fileDescriptor: descriptor)
        let blurred = try BlurRows(decoder, sigma: 8)
        let png = try ImageEncoder().encodePNG(rowsOf: blurred)
        // --- RowSource, BlurRows, ResizeRows, BitmapRows, ImageRowDecoder, workingSetBytes
        let bitmap = try Bitmap(readingAllRowsOf: BlurRows(ImageRowDecoder(data: data), sigma: 8))
        let thumbnail = try Bitmap(readingAllRowsOf: ResizeRows(ImageRowDecoder(data: data), width: 256, height: 171))
        let again = try Bitmap(readingAllRowsOf: BitmapRows(bitmap))
        let jpeg = try Fixture.data("rocket.jpg")
        let quarter = try ImageRowDecoder(data: jpeg, scaleDenominator: 4)
        var row = [UInt8](repeating: 0, count: quarter.bytesPerRow)
        try row.withUnsafeMutableBytes { try quarter.readRows(1, into: $0.baseAddress!, bytesPerRow: quarter.bytesPerRow) }
        let info = try ImageDecoder().probe(data)
        let bytes = ImageDecoder.workingSetBytes(for: info, targetSize: TargetSize(maxWidth: 256))
        // --- the article's JPEG, JPEGStream, RowEncoder
        let photo = data
        let streamed = try ImageEncoder().encodeJPEG(rowsOf: BlurRows(ImageRowDecoder(data: photo), sigma: 8),
                                                     quality: 90, optimizedCoding: false)
        let stream: any RowEncoder = try ImageEncoder.JPEGStream(width: bitmap.width, height: bitmap.height,
                                                                 optimizedCoding: false)
        try stream.write(rows: 0..<bitmap.height, of: bitmap)
        let whole = try stream.finish()
        let grey = try ImageEncoder.JPEGStream(width: 640, height: 480, layout: .grey8, quality: 90)
        let small = ImageEncoder.JPEGStream.workingSetBytes(width: 4000, height: 3000, optimizedCoding: false)
        // ---
        #expect(streamed.data == (try ImageEncoder().encode(bitmap, as: .jpeg(quality: 90, optimizedCoding: false))))
        #expect(grey.rowsWritten == 0 && small < 1 << 20)
        #expect(whole == (try ImageEncoder().encode(bitmap, as: .jpeg(quality: 85, optimizedCoding: false))))
        #expect(try ImageDecoder().decode(png.data) == bitmap)
        #expect(again == bitmap && thumbnail.width == 256)
        let jpegWidth = try ImageDecoder().probe(jpeg).width
        #expect(quarter.rowsRead == 1 && quarter.width == (jpegWidth + 3) / 4)
        #expect(bytes > 256 * 171 * 4 && bytes < 451 * 300 * 4)
    }
}
