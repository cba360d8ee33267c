/// Separable resampling used by ``Resize`` and by downsampled decoding: area averaging when an
/// axis shrinks, bilinear interpolation when it grows. Works on premultiplied alpha in Float so
/// transparent pixels do not bleed their colour into neighbours.
enum Resampler {
    /// Weights mapping `source` samples onto `destination` samples along one axis.
    struct Axis {
        /// First source index contributing to each destination index.
        var first: [Int]
        /// Offset into `weights` of each destination index's weights.
        var offset: [Int]
        /// Number of weights of each destination index.
        var count: [Int]
        var weights: [Float]

        init(source: Int, destination: Int) {
            first = []
            offset = []
            count = []
            weights = []
            first.reserveCapacity(destination)
            if destination < source {
                // Area averaging: destination pixel i covers source [i * scale, (i + 1) * scale).
                let scale = Double(source) / Double(destination)
                for i in 0..<destination {
                    let low = Double(i) * scale
                    let high = min(Double(source), Double(i + 1) * scale)
                    let start = Int(low.rounded(.down))
                    let end = min(source, Int(high.rounded(.up)))
                    first.append(start)
                    offset.append(weights.count)
                    for j in start..<end {
                        let overlap = min(high, Double(j + 1)) - max(low, Double(j))
                        weights.append(Float(max(overlap, 0) / scale))
                    }
                    count.append(end - start)
                }
            } else {
                // Bilinear with pixel centres aligned; edges clamp.
                let scale = Double(source) / Double(destination)
                for i in 0..<destination {
                    let centre = min(max((Double(i) + 0.5) * scale - 0.5, 0), Double(source - 1))
                    let start = Int(centre.rounded(.down))
                    let fraction = Float(centre - Double(start))
                    first.append(start)
                    offset.append(weights.count)
                    if start + 1 < source && fraction > 0 {
                        weights.append(1 - fraction)
                        weights.append(fraction)
                        count.append(2)
                    } else {
                        weights.append(1)
                        count.append(1)
                    }
                }
            }
        }
    }

    /// Rows handled between two cancellation checks.
    static let bandHeight = 32

    /// `bitmap` (RGBA8) resampled to `width` x `height`, streamed through ``ResizeRows``: each source row is
    /// resampled horizontally into a ring of as many Float rows as one output row's vertical taps, and each output
    /// row is made as soon as its taps are in the ring, so nothing of the input's height is held
    /// (``streamingBytes(sourceWidth:sourceHeight:width:height:)`` besides the result).
    static func resize(_ bitmap: Bitmap, width: Int, height: Int,
                       isCancelled: () -> Bool) throws -> Bitmap {
        if width == bitmap.width && height == bitmap.height {
            if isCancelled() { throw ImageError.cancelled }
            return bitmap
        }
        // The stage is dropped before this returns, so the closure does not outlive the call.
        return try withoutActuallyEscaping(isCancelled) { isCancelled in
            try Bitmap(readingAllRowsOf: ResizeRows(BitmapRows(bitmap), width: width, height: height,
                                                    isCancelled: isCancelled))
        }
    }

    /// Bytes a streamed resize of a `sourceWidth` x `sourceHeight` image to `width` x `height` holds besides its
    /// result: ``ResizeRows``' ring (one output row's vertical taps of Float rows) and its source-row buffers.
    static func streamingBytes(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int) -> Int {
        let taps = max(1, Axis(source: sourceHeight, destination: height).count.max() ?? 1)
        return taps * width * 16 + sourceWidth * (16 + 4)
    }

    /// One source row (`sourceWidth` RGBA8 pixels) premultiplied into `scratch` and resampled along `axis` into
    /// `out` (`axis`'s destination count of premultiplied Float pixels): the horizontal pass of ``ResizeRows``.
    @inline(__always)
    static func horizontalRow(_ sourceRow: UnsafePointer<UInt8>, sourceWidth: Int, axis: Axis, opaque: Bool = false,
                              scratch row: UnsafeMutablePointer<SIMD4<Float>>, into out: UnsafeMutablePointer<SIMD4<Float>>) {
        if opaque { // alpha 255: premultiplying multiplies by exactly 1, so this is the same value, cheaper
            for x in 0..<sourceWidth {
                let p = sourceRow + x * 4
                row[x] = SIMD4(Float(p[0]), Float(p[1]), Float(p[2]), 255)
            }
        } else {
            for x in 0..<sourceWidth {
                row[x] = premultiplied(sourceRow + x * 4)
            }
        }
        axis.weights.withUnsafeBufferPointer { weights in
            axis.first.withUnsafeBufferPointer { first in
                axis.offset.withUnsafeBufferPointer { offset in
                    axis.count.withUnsafeBufferPointer { count in
                        for i in 0..<first.count {
                            var sum = SIMD4<Float>()
                            let start = first[i], base = offset[i]
                            for k in 0..<count[i] {
                                sum += row[start + k] * weights[base + k]
                            }
                            out[i] = sum
                        }
                    }
                }
            }
        }
    }

    @inline(__always)
    static func premultiplied(_ pixel: UnsafePointer<UInt8>) -> SIMD4<Float> {
        let alpha = Float(pixel[3])
        let factor = alpha / 255
        return SIMD4(Float(pixel[0]) * factor, Float(pixel[1]) * factor, Float(pixel[2]) * factor, alpha)
    }

    @inline(__always)
    static func storeUnpremultiplied(_ value: SIMD4<Float>, to pixel: UnsafeMutablePointer<UInt8>) {
        let alpha = value[3]
        var colour = value
        if alpha >= 0.5 {
            colour *= 255 / alpha
            colour[3] = alpha
        } else {
            colour = SIMD4()
        }
        let rounded = (colour.rounded(.toNearestOrAwayFromZero)).clamped(lowerBound: SIMD4(repeating: 0),
                                                                         upperBound: SIMD4(repeating: 255))
        pixel[0] = UInt8(rounded[0])
        pixel[1] = UInt8(rounded[1])
        pixel[2] = UInt8(rounded[2])
        pixel[3] = UInt8(rounded[3])
    }
}
