@testable import LanesImages
import LanesTesting
import Testing

/// The whole-bitmap ``Resize`` streams through ``ResizeRows``' ring of Float rows: the same bytes as the two-pass
/// resize it replaced (kept below as the reference), and a working set that does not grow with the input's height.
@Suite(.timeLimit(.minutes(5)), .heavy) struct ResizeStreamingTests {
    /// Odd sizes, shrinking, enlarging, and one axis of each.
    static let cases: [(source: (Int, Int), target: (Int, Int))] = [
        ((451, 301), (97, 67)), ((37, 23), (101, 79)), ((300, 17), (41, 53)), ((19, 250), (61, 9)),
        ((64, 64), (64, 13)), ((5, 3), (1, 1)), ((1, 7), (3, 2)), ((240, 160), (120, 80)),
    ]

    @Test(arguments: 0..<8)
    func streamedResizeEqualsTwoPassResize(index: Int) throws {
        let (source, target) = Self.cases[index]
        for opaque in [true, false] {
            let bitmap = noiseBitmap(width: source.0, height: source.1, seed: UInt32(0x51_7E + index), opaque: opaque)
            let streamed = try Resize(width: target.0, height: target.1).process(bitmap)
            let reference = Self.twoPassResize(bitmap, width: target.0, height: target.1)
            #expect(streamed.width == target.0 && streamed.height == target.1)
            #expect(streamed == reference, "\(source) -> \(target), opaque: \(opaque)")
        }
    }

    /// Grey, grey+alpha and 16-bit inputs go through RGBA8 and come back in their 8-bit layout, as before.
    @Test(arguments: [PixelLayout.grey8, .greyAlpha8, .rgba16, .grey16])
    func otherLayoutsEqualTwoPassResize(layout: PixelLayout) throws {
        let bitmap = noiseBitmap(width: 203, height: 131, opaque: false).converted(to: layout)
        for (width, height) in [(61, 40), (311, 197)] {
            let streamed = try Resize(width: width, height: height).process(bitmap)
            let reference = bitmap.processedAsRGBA8 { Self.twoPassResize($0, width: width, height: height) }
            #expect(streamed.layout == layout.eightBit)
            #expect(streamed == reference, "\(layout) -> \(width)x\(height)")
        }
    }

    /// The reservation is the output plus what the streaming stage holds, and the input's height only enters
    /// through the output: twice the rows in and out, the same ring.
    @Test func workingSetIsTheOutputAndTheRing() throws {
        let short = Bitmap(width: 400, height: 300, filledWith: .white)
        let tall = Bitmap(width: 400, height: 3000, filledWith: .white)
        let resize = Resize(width: 80)   // 80 x 60 and 80 x 600: five source rows per output row
        let stage = try ResizeRows(BitmapRows(short), width: 80, height: 60)
        #expect(resize.workingSetBytes(for: short) == 80 * 60 * 4 + stage.retainedBytesInChain)
        let ring = resize.workingSetBytes(for: short) - 80 * 60 * 4
        #expect(resize.workingSetBytes(for: tall) - 80 * 600 * 4 == ring)
        #expect(ring == 5 * 80 * 16 + 400 * 20)
        #expect(resize.workingSetBytes(for: tall) < 80 * 3000 * 16)   // what the two-pass resize held besides
        // A grey input is resized through an RGBA8 copy: counted.
        let grey = short.converted(to: .grey8)
        #expect(resize.workingSetBytes(for: grey) == resize.workingSetBytes(for: short) + 400 * 300 * 4 + 80 * 60)
        #expect(resize.workingSetBytes(for: Bitmap(width: 80, height: 60, filledWith: .white)) == 0)
    }

    /// A strong shrink reads many source rows per band of output rows; cancellation is still checked between them.
    @Test func strongShrinkChecksCancellationBetweenSourceRows() {
        let checks = CheckCounter(cancelAfter: 2)
        #expect(throws: ImageError.cancelled) {
            try Resize(width: 4, height: 4).process(noiseBitmap(width: 64, height: 512), isCancelled: { checks.check() })
        }
        #expect(checks.count == 3)
    }

    /// The resize ``Resize`` ran before it streamed: every source row resampled horizontally into a Float image of
    /// the output width and the input height, then each output row made from that image's rows.
    static func twoPassResize(_ bitmap: Bitmap, width: Int, height: Int) -> Bitmap {
        if width == bitmap.width && height == bitmap.height { return bitmap }
        let horizontal = Resampler.Axis(source: bitmap.width, destination: width)
        let vertical = Resampler.Axis(source: bitmap.height, destination: height)
        let sourceWidth = bitmap.width, sourceHeight = bitmap.height
        var middle = [SIMD4<Float>](repeating: SIMD4(), count: width * sourceHeight)
        var row = [SIMD4<Float>](repeating: SIMD4(), count: sourceWidth)
        bitmap.withUnsafePixels { source in
            middle.withUnsafeMutableBufferPointer { middle in
                row.withUnsafeMutableBufferPointer { row in
                    for y in 0..<sourceHeight {
                        Resampler.horizontalRow(source.baseAddress! + y * sourceWidth * 4, sourceWidth: sourceWidth,
                                                axis: horizontal, scratch: row.baseAddress!,
                                                into: middle.baseAddress! + y * width)
                    }
                }
            }
        }
        return Bitmap(width: width, height: height) { destination in
            for y in 0..<height {
                for x in 0..<width {   // the taps summed in order from zero, as the old loop did
                    let sum = (0..<vertical.count[y]).reduce(SIMD4<Float>()) { sum, k in
                        sum + middle[(vertical.first[y] + k) * width + x] * vertical.weights[vertical.offset[y] + k]
                    }
                    Resampler.storeUnpremultiplied(sum, to: destination.baseAddress! + (y * width + x) * 4)
                }
            }
        }
    }
}
