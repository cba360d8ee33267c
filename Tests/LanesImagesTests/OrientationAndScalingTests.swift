import Foundation
import LanesImages
import LanesTesting
import Testing

/// Exif orientation transforms and downsampled (DCT-scaled) decoding.
@Suite(.timeLimit(.minutes(5)), .heavy) struct OrientationAndScalingTests {
    let decoder = ImageDecoder()

    // Stored 3 x 2:   A B C
    //                 D E F
    static let a = RGBA(grey: 1), b = RGBA(grey: 2), c = RGBA(grey: 3)
    static let d = RGBA(grey: 4), e = RGBA(grey: 5), f = RGBA(grey: 6)
    static let stored = Bitmap(width: 3, height: 2, pixels: [a, b, c, d, e, f].flatMap { [$0.red, $0.green, $0.blue, $0.alpha] })

    static let expectations: [(ExifOrientation, width: Int, rows: [[RGBA]])] = [
        (.up, 3, [[a, b, c], [d, e, f]]),
        (.upMirrored, 3, [[c, b, a], [f, e, d]]),
        (.down, 3, [[f, e, d], [c, b, a]]),
        (.downMirrored, 3, [[d, e, f], [a, b, c]]),
        (.leftMirrored, 2, [[a, d], [b, e], [c, f]]),   // transpose
        (.right, 2, [[d, a], [e, b], [f, c]]),          // 90° clockwise
        (.rightMirrored, 2, [[f, c], [e, b], [d, a]]),  // transverse
        (.left, 2, [[c, f], [b, e], [a, d]]),           // 90° counter-clockwise
    ]

    @Test(arguments: 0..<8)
    func orientationTransformsSyntheticBitmap(index: Int) {
        let (orientation, width, rows) = Self.expectations[index]
        #expect(orientation.rawValue == index + 1)
        let result = Self.stored.oriented(orientation)
        #expect(result.width == width)
        #expect(result.height == rows.count)
        let expected = Bitmap(width: width, height: rows.count,
                              pixels: rows.flatMap { $0 }.flatMap { [$0.red, $0.green, $0.blue, $0.alpha] })
        #expect(result == expected, "\(orientation)")
        #expect(orientation.swapsDimensions == (width == 2))
    }

    /// A 32 x 16 JPEG whose left half is red and right half blue, tagged with an orientation.
    func taggedJPEG(orientation: UInt16, bigEndian: Bool) throws -> [UInt8] {
        let stored = makeBitmap(width: 32, height: 16) { x, _ in
            x < 16 ? RGBA(red: 255, green: 0, blue: 0) : RGBA(red: 0, green: 0, blue: 255)
        }
        let jpeg = try ImageEncoder().encode(stored, as: .jpeg(quality: 95))
        return ExifSegment.inserting(ExifSegment.orientation(orientation, bigEndian: bigEndian), into: Array(jpeg))
    }

    @Test(arguments: [false, true])
    func jpegExifRotationIsAppliedOnDecode(bigEndian: Bool) throws {
        let red = RGBA(red: 255, green: 0, blue: 0), blue = RGBA(red: 0, green: 0, blue: 255)

        let right = try taggedJPEG(orientation: 6, bigEndian: bigEndian)
        #expect(try decoder.probe(right).orientation == .right)
        let rotatedClockwise = try decoder.decode(right)
        #expect(rotatedClockwise.width == 16 && rotatedClockwise.height == 32)
        #expect(close(rotatedClockwise[8, 4], red, tolerance: 8))   // stored left -> top
        #expect(close(rotatedClockwise[8, 27], blue, tolerance: 8))

        let left = try taggedJPEG(orientation: 8, bigEndian: bigEndian)
        let rotatedCounter = try decoder.decode(left)
        #expect(rotatedCounter.width == 16 && rotatedCounter.height == 32)
        #expect(close(rotatedCounter[8, 4], blue, tolerance: 8))    // stored right -> top
        #expect(close(rotatedCounter[8, 27], red, tolerance: 8))

        let mirrored = try decoder.decode(taggedJPEG(orientation: 2, bigEndian: bigEndian))
        #expect(mirrored.width == 32 && close(mirrored[4, 8], blue, tolerance: 8))
    }

    @Test func invalidOrientationValueMeansUp() throws {
        let jpeg = try taggedJPEG(orientation: 9, bigEndian: false)
        #expect(try decoder.probe(jpeg).orientation == .up)
        #expect(try decoder.decode(jpeg).width == 32)
    }

    @Test func jpegScaleDenominatorIsLargestStillCoveringTarget() {
        #expect(ImageDecoder.jpegScaleDenominator(width: 640, height: 427, targetWidth: 640, targetHeight: 427) == 1)
        #expect(ImageDecoder.jpegScaleDenominator(width: 640, height: 427, targetWidth: 321, targetHeight: 100) == 1)
        #expect(ImageDecoder.jpegScaleDenominator(width: 640, height: 427, targetWidth: 320, targetHeight: 214) == 2)
        #expect(ImageDecoder.jpegScaleDenominator(width: 640, height: 427, targetWidth: 200, targetHeight: 133) == 2)
        #expect(ImageDecoder.jpegScaleDenominator(width: 640, height: 427, targetWidth: 160, targetHeight: 107) == 4)
        #expect(ImageDecoder.jpegScaleDenominator(width: 640, height: 427, targetWidth: 80, targetHeight: 54) == 8)
        #expect(ImageDecoder.jpegScaleDenominator(width: 640, height: 427, targetWidth: 10, targetHeight: 7) == 8)
    }

    /// Reference sums from Pillow's own 1/2 and 1/4 DCT-scaled decodes of rocket.jpg: a target
    /// of exactly that size must come straight out of libjpeg's scaled IDCT, bit for bit.
    @Test(arguments: [
        (320, 214, [3_587_294, 4_200_632, 5_629_335]),
        (160, 107, [896_852, 1_050_091, 1_407_279]),
    ])
    func jpegDCTScaledDecodeMatchesReference(width: Int, height: Int, sums: [Int]) throws {
        let bitmap = try decoder.decode(Fixture.data("rocket.jpg"), targetSize: TargetSize(maxWidth: width))
        #expect(bitmap.width == width && bitmap.height == height)
        #expect(channelSums(bitmap) == sums)
    }

    /// 1/8 scale gives 80 x 54 (libjpeg rounds up); the 80 x 53 fit is then area-reduced from it.
    @Test func jpegEighthScaleThenAreaReduce() throws {
        let bitmap = try decoder.decode(Fixture.data("rocket.jpg"), targetSize: TargetSize(maxWidth: 80))
        #expect(bitmap.width == 80 && bitmap.height == 53)
        let reference = [228_783, 265_782, 354_652] // Pillow's 1/8 decode, 80 x 54
        for (actual, expected) in zip(channelSums(bitmap), reference) {
            #expect(abs(Double(actual) / (80 * 53) - Double(expected) / (80 * 54)) < 0.5)
        }
    }

    @Test func targetSizeAreaReducesAfterDCTScaling() throws {
        let bitmap = try decoder.decode(Fixture.data("rocket.jpg"), targetSize: TargetSize(maxWidth: 100, maxHeight: 100))
        #expect(bitmap.width == 100 && bitmap.height == 67)
        let full = try decoder.decode(Fixture.data("rocket.jpg"))
        let means = zip(channelSums(bitmap), channelSums(full)).map { small, large in
            (Double(small) / Double(100 * 67), Double(large) / Double(640 * 427))
        }
        for (small, large) in means {
            #expect(abs(small - large) < 1.5) // area averaging preserves the mean
        }
    }

    @Test func pngTargetSizeDecodesThenReduces() throws {
        let bitmap = try decoder.decode(Fixture.data("camera.png"), targetSize: TargetSize(maxWidth: 64, maxHeight: 64))
        #expect(bitmap.width == 64 && bitmap.height == 64)
        // Area average of the 8 x 8 block at the top-left of the full image.
        let full = try decoder.decode(Fixture.data("camera.png"))
        var sum = 0
        for y in 0..<8 { for x in 0..<8 { sum += Int(full[x, y].red) } }
        #expect(abs(Int(bitmap[0, 0].red) - Int((Double(sum) / 64).rounded())) <= 1)
    }

    @Test func targetSizeNeverEnlargesAndRespectsOrientation() throws {
        let small = try decoder.decode(Fixture.data("grey-100.jpg"), targetSize: TargetSize(maxWidth: 1000, maxHeight: 1000))
        #expect(small.width == 16 && small.height == 8)
        // Stored 32 x 16 rotated to 16 x 32; a 8 x 8 box gives 4 x 8 upright.
        let rotated = try decoder.decode(taggedJPEG(orientation: 6, bigEndian: true), targetSize: TargetSize(maxWidth: 8, maxHeight: 8))
        #expect(rotated.width == 4 && rotated.height == 8)
        #expect(TargetSize(maxWidth: 200, maxHeight: 200).fittedSize(width: 4000, height: 3000) == (200, 150))
    }
}
