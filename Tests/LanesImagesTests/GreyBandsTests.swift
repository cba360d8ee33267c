import Foundation
import LanesImages
import LanesTesting
import Testing

/// Grey files in bands: decoded to RGBA8 rows, processed, folded back to grey by ``ConvertedRows``: the bytes of the
/// whole-bitmap operations on the grey bitmap (which spread it to RGBA and fold it back), grey outputs, and memory that
/// does not grow with the height.
@Suite(.timeLimit(.minutes(5)), .heavy) struct GreyBandsTests {
    /// A grey (or grey and alpha, some of it transparent) noise bitmap; odd sizes.
    static func greyBitmap(width: Int = 301, height: Int = 203, alpha: Bool) -> Bitmap {
        noiseBitmap(width: width, height: height, seed: 0x5EED, opaque: !alpha).converted(to: alpha ? .greyAlpha8 : .grey8)
    }

    static func file(_ bitmap: Bitmap, jpeg: Bool) throws -> Data {
        try ImageEncoder().encode(bitmap, as: jpeg ? .jpeg(quality: 90) : .png(compressionLevel: 1))
    }

    /// The rows of `source`, read in uneven chunks, as a bitmap of its layout.
    static func drain(_ source: any RowSource) throws -> Bitmap {
        let rowBytes = source.bytesPerRow
        var pixels = [UInt8](repeating: 0, count: rowBytes * source.height)
        var y = 0, i = 0
        let chunks = [7, 1, 130, 64]
        try pixels.withUnsafeMutableBytes { buffer in
            while y < source.height {
                let count = min(chunks[i % chunks.count], source.height - y)
                try source.readRows(count, into: buffer.baseAddress! + y * rowBytes, bytesPerRow: rowBytes)
                y += count
                i += 1
            }
        }
        return Bitmap(width: source.width, height: source.height, layout: source.layout, pixels: pixels)
    }

    @Test(arguments: ["grey png", "grey+alpha png", "grey jpeg"])
    func foldedRowsEqualTheWholeOperations(input: String) throws {
        let data = try Self.file(Self.greyBitmap(alpha: input.contains("alpha")), jpeg: input.contains("jpeg"))
        let stored = try ImageDecoder(keepsStoredLayout: true).decode(data)
        #expect(stored.layout == (input.contains("alpha") ? .greyAlpha8 : .grey8))
        let steps: [(String, (any RowSource) throws -> any RowSource, any ImageProcessor)] = [
            ("blur", { try BlurRows($0, sigma: 3) }, GaussianBlur(sigma: 3)),
            ("tilt-shift", { try BlurRows($0, tiltShift: TiltShift()) }, TiltShift()),
            ("resize", { try ResizeRows($0, width: 101, height: 69) }, Resize(width: 101, height: 69)),
        ]
        for (name, stage, processor) in steps {
            let rows = ConvertedRows(try stage(ImageRowDecoder(data: data)), to: stored.layout)
            let banded = try Self.drain(rows)
            let whole = try processor.process(stored)
            #expect(banded.layout == stored.layout, "\(name)")
            #expect(banded == whole, "\(input), \(name)")
            // Streamed out: the whole encoder's bytes, and still a grey file.
            let png = try ImageEncoder().encodePNG(rowsOf: ConvertedRows(try stage(ImageRowDecoder(data: data)),
                                                                         to: stored.layout), bandRows: 37)
            #expect(png.data == (try ImageEncoder().encode(whole, as: .png())), "\(input), \(name)")
            let jpeg = try ImageEncoder().encodeJPEG(rowsOf: ConvertedRows(try stage(ImageRowDecoder(data: data)),
                                                                           to: stored.layout),
                                                     background: RGBA(red: 200, green: 40, blue: 90), bandRows: 37)
            #expect(jpeg.data == (try ImageEncoder().encode(whole, as: .jpeg(background: RGBA(red: 200, green: 40,
                                                                                             blue: 90)))))
            #expect(try ImageDecoder().probe(jpeg.data).components == 1, "a grey JPEG")
            #expect(try ImageDecoder(keepsStoredLayout: true).decode(png.data).layout == stored.layout)
        }
    }

    @Test func sameLayoutPassesStraightThroughAndOpacityIsForwarded() throws {
        let data = try Self.file(Self.greyBitmap(alpha: false), jpeg: false)
        let same = ConvertedRows(try ImageRowDecoder(data: data), to: .rgba8)
        #expect(same.retainedBytes == 0 && same.isOpaque)
        #expect(try Self.drain(same) == (try ImageDecoder().decode(data)))
        let translucent = try Self.file(Self.greyBitmap(alpha: true), jpeg: false)
        #expect(!ConvertedRows(try ImageRowDecoder(data: translucent), to: .greyAlpha8).isOpaque)
        #expect(ConvertedRows(try ImageRowDecoder(data: translucent), to: .grey8).isOpaque) // flattened
    }

    /// What a grey chain holds depends on the width and σ, not the height; its bands are a quarter of RGBA's.
    @Test func heldBytesDoNotGrowWithTheHeight() throws {
        var held: [Int] = []
        for height in [300, 3000] {
            let data = try Self.file(Self.greyBitmap(width: 211, height: height, alpha: false), jpeg: false)
            let chain = ConvertedRows(try BlurRows(ImageRowDecoder(data: data), sigma: 4), to: .grey8)
            #expect(chain.retainedBytes == 211 * 4 && chain.bytesPerRow == 211)
            held.append(chain.retainedBytesInChain)
        }
        #expect(held[0] == held[1])
        #expect(held[1] < 211 * 3000 / 2)
    }

    @Test func exampleRuns() throws {
        let greyPNG = try Self.file(Self.greyBitmap(alpha: false), jpeg: false)
        // --- ConvertedRows
        let decoder = try ImageRowDecoder(data: greyPNG)                       // RGBA8 rows, red = green = blue
        let grey = ConvertedRows(try BlurRows(decoder, sigma: 8), to: .grey8)   // grey again
        let png = try ImageEncoder().encodePNG(rowsOf: grey)                    // a grey PNG
        // ---
        #expect(try ImageDecoder(keepsStoredLayout: true).decode(png.data)
                == GaussianBlur(sigma: 8).process(ImageDecoder(keepsStoredLayout: true).decode(greyPNG)))
    }
}
