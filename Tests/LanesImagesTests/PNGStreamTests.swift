import Foundation
import LanesImages
import LanesTesting
import Synchronization
import Testing

/// The row-at-a-time PNG encoder, fed a bitmap's rows through the blur and tilt-shift stages.
@Suite(.timeLimit(.minutes(5)), .heavy) struct PNGStreamTests {
    let encoder = ImageEncoder()
    let decoder = ImageDecoder()

    @Test(arguments: [(1, 1), (37, 23), (300, 17), (5, 130)])
    func streamedPNGDecodesToTheInputAndMatchesEncode(width: Int, height: Int) throws {
        for opaque in [true, false] {
            let original = noiseBitmap(width: width, height: height, seed: UInt32(width * 131 + height), opaque: opaque)
            for filter in [ImageEncoder.PNGFilter.none, .sub, .paeth, .adaptive] {
                let stream = try ImageEncoder.PNGStream(width: width, height: height, hasAlpha: !opaque,
                                                        compressionLevel: 6, filter: filter)
                // Uneven chunks: 1 row, then 3, then the rest.
                var y = 0
                for chunk in [1, 3, height] where y < height {
                    let count = min(chunk, height - y)
                    try stream.write(rows: y..<(y + count), of: original)
                    y += count
                    #expect(stream.rowsWritten == y)
                }
                let png = try stream.finish()
                #expect(stream.byteCount == png.count)
                #expect(try decoder.decode(png) == original)
                #expect(png == (try encoder.encode(original, as: .png(compressionLevel: 6, filter: filter))))
            }
        }
    }

    @Test func streamWritesToAFileDescriptor() throws {
        let original = noiseBitmap(width: 70, height: 40)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pngstream-\(UUID().uuidString).png")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: url) }
        let handle = try FileHandle(forWritingTo: url)
        let stream = try ImageEncoder.PNGStream(width: 70, height: 40, hasAlpha: false, filter: .up,
                                                fileDescriptor: handle.fileDescriptor)
        try stream.write(rows: 0..<40, of: original)
        #expect(try stream.finish().isEmpty)
        try handle.close()
        let written = try Data(contentsOf: url)
        #expect(written.count == stream.byteCount)
        #expect(written == (try encoder.encode(original, as: .png(filter: .up))))
    }

    @Test func badArgumentsAndMisuseThrow() throws {
        #expect(throws: ImageError.self) { try ImageEncoder.PNGStream(width: 0, height: 5, hasAlpha: false) }
        #expect(throws: ImageError.self) { try ImageEncoder.PNGStream(width: 5, height: -1, hasAlpha: false) }
        #expect(throws: ImageError.self) {
            try ImageEncoder.PNGStream(width: 5, height: 5, hasAlpha: false, compressionLevel: 10)
        }
        let bitmap = noiseBitmap(width: 8, height: 4)
        let stream = try ImageEncoder.PNGStream(width: 8, height: 4, hasAlpha: false)
        try stream.write(rows: 0..<2, of: bitmap)
        #expect(throws: ImageError.self) { try stream.finish() }          // 2 of 4 rows
        #expect(throws: ImageError.self) { try stream.write(rows: 0..<3, of: bitmap) } // past the height
        #expect(throws: ImageError.self) { try stream.write(rows: 0..<1, of: noiseBitmap(width: 9, height: 1)) }
        try stream.write(rows: 2..<4, of: bitmap)
        let png = try stream.finish()
        #expect(try decoder.decode(png) == bitmap)
        do {
            try stream.write(rows: 0..<1, of: bitmap)
            Issue.record("writing after finish did not throw")
        } catch let error as ImageError {
            #expect("\(error)".contains("already finished"))
        }
        #expect(throws: ImageError.self) { try stream.finish() }
    }

    @Test func aFailedWriteIsReported() throws {
        // A descriptor open for reading only: the header's write fails.
        let handle = try #require(FileHandle(forReadingAtPath: "/dev/null"))
        defer { try? handle.close() }
        do {
            _ = try ImageEncoder.PNGStream(width: 4, height: 4, hasAlpha: false, fileDescriptor: handle.fileDescriptor)
            Issue.record("writing to a read-only descriptor did not throw")
        } catch let error as ImageError {
            #expect("\(error)".contains("cannot write"))
        }
    }

    @Test(arguments: [false, true])
    func blurredBitmapRowsEqualBlurThenEncode(opaque: Bool) throws {
        // A whole bitmap is one more row source: its rows blurred by the stages and band-encoded give the whole path's
        // pixels (and, opaque, its very bytes).
        let source = noiseBitmap(width: 600, height: 260, seed: 77, opaque: opaque)
        let cases: [(any ImageProcessor, (any RowSource) throws -> any RowSource)] = [
            (GaussianBlur(sigma: 2.5), { try BlurRows($0, sigma: 2.5) }),
            (TiltShift(sigma: 3), { try BlurRows($0, tiltShift: TiltShift(sigma: 3)) }),
        ]
        for (processor, stage) in cases {
            let expected = try processor.process(source)
            let streamed = try encoder.encodePNG(rowsOf: stage(BitmapRows(source)), compressionLevel: 6, filter: .none)
            #expect(try decoder.decode(streamed.data) == expected)
            #expect(streamed.byteCount == streamed.data.count)
            if opaque {
                #expect(streamed.data == (try encoder.encode(expected, as: .png(compressionLevel: 6, filter: .none))))
            }
        }
    }

    @Test func cancellationStopsBothThreads() throws {
        let source = noiseBitmap(width: 300, height: 200, seed: 9)
        let checks = Atomic<Int>(0)
        #expect(throws: ImageError.cancelled) {
            // Cancelled at the 5th check, after some rows were handed to the encoder.
            let rows = try BlurRows(BitmapRows(source), sigma: 2,
                                    isCancelled: { checks.add(1, ordering: .relaxed).newValue >= 5 })
            _ = try encoder.encodePNG(rowsOf: rows, filter: .none, bandRows: 16)
        }
        #expect(checks.load(ordering: .relaxed) >= 5)
    }

    @Test func anEncoderErrorStopsTheBlurAndIsThrown() throws {
        let handle = try #require(FileHandle(forReadingAtPath: "/dev/null"))
        defer { try? handle.close() }
        do {
            _ = try encoder.encodePNG(rowsOf: BlurRows(BitmapRows(noiseBitmap(width: 300, height: 120)), sigma: 2),
                                      fileDescriptor: handle.fileDescriptor)
            Issue.record("a failed write did not throw")
        } catch let error as ImageError {
            #expect(error != .cancelled)
            #expect("\(error)".contains("cannot write"))
        }
    }
}
