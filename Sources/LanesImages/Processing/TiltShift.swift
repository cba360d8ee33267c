/// The tilt-shift "miniature" effect: a sharp horizontal band that fades into blur above and
/// below. Outside the band the output blends the original with a Gaussian blur through a
/// smoothstep mask that rises from 0 at the band's edge to 1 after `transition`.
/// Positions are fractions of the image height, so one processor suits any size.
///
/// ```swift
/// // Sharp band centred 60% down, 20% of the height tall, full blur 25% of the height away.
/// let miniature = try TiltShift(focusCenter: 0.6, focusHeight: 0.2, transition: 0.25, sigma: 6)
///     .process(photo)
/// ```
public struct TiltShift: ImageProcessor {
    /// Centre of the sharp band, as a fraction of the height (0 = top, 1 = bottom).
    public let focusCenter: Double
    /// Height of the fully sharp band, as a fraction of the image height.
    public let focusHeight: Double
    /// Distance over which the blur fades in beyond the band, as a fraction of the height.
    public let transition: Double
    /// Standard deviation of the blur at full strength, in pixels.
    public let sigma: Double

    /// A tilt-shift effect; fractions must be finite with `focusHeight`, `transition` >= 0,
    /// and `sigma` >= 0.
    public init(focusCenter: Double = 0.5, focusHeight: Double = 0.2, transition: Double = 0.25,
                sigma: Double = 6) {
        precondition(focusCenter.isFinite && focusHeight.isFinite && transition.isFinite,
                     "TiltShift fractions must be finite")
        precondition(focusHeight >= 0 && transition >= 0, "TiltShift band and transition must be >= 0")
        precondition(sigma >= 0 && sigma.isFinite, "TiltShift sigma must be finite and >= 0")
        self.focusCenter = focusCenter
        self.focusHeight = focusHeight
        self.transition = transition
        self.sigma = sigma
    }

    public var identifier: String {
        "tiltShift(center=\(identifierNumber(focusCenter)),height=\(identifierNumber(focusHeight))"
            + ",transition=\(identifierNumber(transition)),sigma=\(identifierNumber(sigma)))"
    }

    /// The output and the blur's rings (see ``GaussianBlur/workingSetBytes(for:)``).
    public func workingSetBytes(for bitmap: Bitmap) -> Int {
        guard sigma > 0 else { return 0 }
        return bitmap.byteCount + BlurEngine.wholeBitmapScratchBytes(sigma: sigma, width: bitmap.width, height: bitmap.height)
    }

    /// How blurred row `y` of an image `height` rows tall is: 0 = original, 1 = fully blurred.
    ///
    /// ```swift
    /// TiltShift().blurAmount(row: 50, height: 100)   // 0: inside the band
    /// ```
    public func blurAmount(row y: Int, height: Int) -> Double {
        let position = (Double(y) + 0.5) / Double(height)
        let distance = abs(position - focusCenter) - focusHeight / 2
        if distance <= 0 { return 0 }
        if transition == 0 || distance >= transition { return 1 }
        let t = distance / transition
        return t * t * (3 - 2 * t)
    }

    public func process(_ bitmap: Bitmap, isCancelled: @Sendable () -> Bool) throws -> Bitmap {
        if isCancelled() { throw ImageError.cancelled }
        let weights = blendWeights(height: bitmap.height)
        guard sigma > 0, weights.contains(where: { $0 > 0 }) else { return bitmap }
        guard bitmap.layout == .rgba8 else {  // grey stays grey, 16 bits become 8 (see processedAsRGBA8)
            return try bitmap.processedAsRGBA8 { try process($0, isCancelled: isCancelled) }
        }
        return try Bitmap(width: bitmap.width, height: bitmap.height) { destination in
            try render(bitmap, weights: weights, into: destination, isCancelled: isCancelled, interleave: false)
        }
    }

    /// Blend weights in 1/256 units, per row.
    func blendWeights(height: Int) -> [Int] {
        (0..<height).map { y in Int((blurAmount(row: y, height: height) * 256).rounded()) }
    }

    /// Blurs the rows that need it and blends; rows become final top to bottom (reported to
    /// `rowsCompleted`, band by band with `interleave`) because each row is blended as soon as
    /// its blur is final.
    private func render(_ bitmap: Bitmap, weights: [Int], into destination: UnsafeMutableBufferPointer<UInt8>,
                        isCancelled: @Sendable () -> Bool, interleave: Bool,
                        rowsCompleted: (Int) throws -> Void = { _ in }) throws {
        let width = bitmap.width, height = bitmap.height, rowBytes = bitmap.bytesPerRow
        // The blurred rows form at most two runs: above and below the band.
        var runs: [Range<Int>] = []
        var y = 0
        while y < height {
            guard weights[y] > 0 else { y += 1; continue }
            let start = y
            while y < height && weights[y] > 0 { y += 1 }
            runs.append(start..<y)
        }
        try bitmap.withUnsafePixels { source in
            let engine = BlurEngine(kernel: GaussianKernel(sigma: sigma), width: width, height: height,
                                    opaque: BlurEngine.isOpaque(source.baseAddress!, count: bitmap.pixelCount))
            let src = source.baseAddress!, dst = destination.baseAddress!
            // Rows before `finished` are blended (or copied) and final.
            var finished = 0
            func finish(upTo limit: Int) throws {
                guard finished < limit else { return }  // nothing new to report
                while finished < limit {
                    let y = finished
                    if y % BlurEngine.bandHeight == 0 && isCancelled() { throw ImageError.cancelled }
                    let row = y * rowBytes
                    let blurredWeight = weights[y]
                    if blurredWeight == 0 {
                        (dst + row).initialize(from: src + row, count: rowBytes)
                    } else if blurredWeight < 256 {
                        let originalWeight = 256 - blurredWeight
                        for i in row..<(row + rowBytes) {
                            let mixed = Int(dst[i]) * blurredWeight + Int(src[i]) * originalWeight + 128
                            dst[i] = UInt8(truncatingIfNeeded: mixed >> 8)
                        }
                    }
                    finished += 1
                }
                try rowsCompleted(finished)
            }
            for run in runs {
                try engine.blur(source: src, destination: dst, rows: run, isCancelled: isCancelled,
                                interleave: interleave) { blurred in
                    try finish(upTo: blurred)
                }
            }
            try finish(upTo: height)
        }
    }
}
