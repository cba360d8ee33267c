import Foundation
import LanesImages
import LanesTesting
import Testing

/// The row-at-a-time JPEG encoder: the same bytes as the whole-bitmap encoder, in bands, into a descriptor.
@Suite(.timeLimit(.minutes(5)), .heavy) struct JPEGStreamTests {
    let encoder = ImageEncoder()

    /// A bitmap of `layout` with noise in every sample (alpha too, when `opaque` is false).
    func noise(width: Int, height: Int, layout: PixelLayout, opaque: Bool) -> Bitmap {
        let rgba = noiseBitmap(width: width, height: height, seed: UInt32(width * 977 + height), opaque: opaque)
        return layout == .rgba8 ? rgba : rgba.converted(to: layout)
    }

    @Test(arguments: [(1, 1), (37, 23), (300, 17), (5, 130), (17, 9)])
    func streamedJPEGEqualsWholeEncode(width: Int, height: Int) throws {
        let layouts: [PixelLayout] = [.rgba8, .grey8, PixelLayout(channels: 2, bytesPerSample: 2)!]
        for layout in layouts {
            for (opaque, optimized) in [(true, true), (false, false), (false, true)] {
                let bitmap = noise(width: width, height: height, layout: layout, opaque: opaque)
                let stream = try ImageEncoder.JPEGStream(width: width, height: height, layout: layout, quality: 83,
                                                         background: RGBA(red: 200, green: 10, blue: 90),
                                                         optimizedCoding: optimized)
                var y = 0
                for chunk in [1, 3, 8, height] where y < height { // cuts inside and across libjpeg's 16-row groups
                    let count = min(chunk, height - y)
                    try stream.write(rows: y..<(y + count), of: bitmap)
                    y += count
                    #expect(stream.rowsWritten == y)
                }
                let jpeg = try stream.finish()
                #expect(stream.byteCount == jpeg.count)
                let whole = try encoder.encode(bitmap, as: .jpeg(quality: 83, background: RGBA(red: 200, green: 10, blue: 90),
                                                                 optimizedCoding: optimized))
                #expect(jpeg == whole, "\(width)x\(height) \(layout) opaque \(opaque) optimized \(optimized)")
                #expect(try ImageDecoder().probe(jpeg).components == (layout.isGrey ? 1 : 3))
            }
        }
    }

    @Test func standardTablesDecodeToTheSamePixelsInABiggerFile() throws {
        let photo = try ImageDecoder().decode(Fixture.data("chelsea.png"))
        let optimized = try encoder.encode(photo, as: .jpeg(quality: 90))
        let standard = try encoder.encode(photo, as: .jpeg(quality: 90, optimizedCoding: false))
        #expect(standard.count > optimized.count)
        #expect(try ImageDecoder().decode(standard) == ImageDecoder().decode(optimized)) // only the entropy coding differs
    }

    /// Banded encoding of a decode → blur chain cut into bands anywhere gives the whole pipeline's bytes.
    @Test(arguments: [1, 7, 16, 64, 1000])
    func bandedJPEGEqualsWholeJPEG(bandRows: Int) throws {
        let data = try Fixture.data("chelsea.png") // 451 x 300: odd width, and no multiple of 16 either way
        for optimized in [false, true] {
            let (jpeg, count) = try encoder.encodeJPEG(rowsOf: BlurRows(ImageRowDecoder(data: data), sigma: 4), quality: 90,
                                                       optimizedCoding: optimized, bandRows: bandRows)
            let whole = try Bitmap(readingAllRowsOf: BlurRows(ImageRowDecoder(data: data), sigma: 4))
            #expect(count == jpeg.count)
            #expect(jpeg == (try encoder.encode(whole, as: .jpeg(quality: 90, optimizedCoding: optimized))))
        }
        // Alpha is flattened on the background, as the whole encoder does.
        let translucent = noiseBitmap(width: 33, height: 41, seed: 7, opaque: false)
        let banded = try encoder.encodeJPEG(rowsOf: BitmapRows(translucent), background: .black, bandRows: bandRows)
        #expect(banded.data == (try encoder.encode(translucent, as: .jpeg(background: .black))))
    }

    @Test func streamWritesToAFileDescriptor() throws {
        let original = noiseBitmap(width: 70, height: 40)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("jpegstream-\(UUID().uuidString).jpg")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: url) }
        let handle = try FileHandle(forWritingTo: url)
        let stream = try ImageEncoder.JPEGStream(width: 70, height: 40, optimizedCoding: false,
                                                 fileDescriptor: handle.fileDescriptor)
        try stream.write(rows: 0..<40, of: original)
        #expect(try stream.finish().isEmpty)
        try handle.close()
        let written = try Data(contentsOf: url)
        #expect(written.count == stream.byteCount && written.count > 0)
        #expect(written == (try encoder.encode(original, as: .jpeg(optimizedCoding: false))))
    }

    @Test func badArgumentsAndMisuseThrow() throws {
        #expect(throws: ImageError.self) { try ImageEncoder.JPEGStream(width: 0, height: 5) }
        #expect(throws: ImageError.self) { try ImageEncoder.JPEGStream(width: 70_000, height: 5) }
        #expect(throws: ImageError.self) { try ImageEncoder.JPEGStream(width: 5, height: 5, quality: 0) }
        let bitmap = noiseBitmap(width: 8, height: 4)
        let stream = try ImageEncoder.JPEGStream(width: 8, height: 4)
        try stream.write(rows: 0..<2, of: bitmap)
        #expect(throws: ImageError.self) { try stream.finish() }                            // 2 of 4 rows
        #expect(throws: ImageError.self) { try stream.write(rows: 0..<3, of: bitmap) }      // past the height
        #expect(throws: ImageError.self) { try stream.write(rows: 0..<1, of: noiseBitmap(width: 9, height: 1)) }
        try stream.write(rows: 2..<4, of: bitmap)
        let jpeg = try stream.finish()
        #expect(jpeg == (try encoder.encode(bitmap, as: .jpeg())))
        do {
            try stream.write(rows: 0..<1, of: bitmap)
            Issue.record("writing after finish did not throw")
        } catch let error as ImageError {
            #expect("\(error)".contains("already finished"))
        }
        #expect(throws: ImageError.self) { try encoder.encodeJPEG(rowsOf: BitmapRows(bitmap), quality: 101) }
    }

    @Test func aFullDiskIsReportedAndTheStreamRefusesMore() throws {
        // /dev/full fails every write with ENOSPC: the first 64 KB window (or the end) cannot be written.
        let handle = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        defer { try? handle.close() }
        let bitmap = noiseBitmap(width: 300, height: 300)
        let stream = try ImageEncoder.JPEGStream(width: 300, height: 300, quality: 100, optimizedCoding: false,
                                                 fileDescriptor: handle.fileDescriptor)
        do {
            try stream.write(rows: 0..<300, of: bitmap)
            try stream.finish()
            Issue.record("writing to /dev/full did not throw")
        } catch let error as ImageError {
            #expect("\(error)".contains("cannot write the JPEG"), "\(error)")
        }
        #expect(throws: ImageError.self) { try stream.finish() } // failed earlier
        // The band encoder stops its source and ends its thread on the same failure.
        #expect(throws: ImageError.self) {
            try encoder.encodeJPEG(rowsOf: BitmapRows(bitmap), quality: 100, fileDescriptor: handle.fileDescriptor,
                                   bandRows: 16)
        }
    }

    @Test func aFailingSourceStopsTheEncoderCleanly() throws {
        let data = try Fixture.data("chelsea.png")
        #expect(throws: ImageError.truncated) {
            try ImageEncoder().encodeJPEG(rowsOf: BlurRows(ImageRowDecoder(data: data.prefix(data.count / 2)), sigma: 4))
        }
    }

    /// With standard tables the stream holds a few rows: what it reports depends on the width, never on the height;
    /// with optimal ones it grows with the image (every coefficient, 2 bytes each).
    @Test func workingSetDoesNotScaleWithHeight() {
        let short = ImageEncoder.JPEGStream.workingSetBytes(width: 4000, height: 100, optimizedCoding: false)
        let tall = ImageEncoder.JPEGStream.workingSetBytes(width: 4000, height: 30_000, optimizedCoding: false)
        #expect(short == tall && tall < 4000 * 64 * 4)
        let optimized = ImageEncoder.JPEGStream.workingSetBytes(width: 4000, height: 3000, optimizedCoding: true)
        #expect(optimized > 4000 * 3000 * 3 && optimized < 4000 * 3000 * 4) // 3 bytes a pixel at 4:2:0, plus the rows
        let grey = ImageEncoder.JPEGStream.workingSetBytes(width: 4000, height: 3000, layout: .grey8, optimizedCoding: true)
        #expect(grey > 4000 * 3000 * 2 && grey < optimized)
    }
}
