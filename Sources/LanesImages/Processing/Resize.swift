/// Resizes a bitmap: area averaging along an axis that shrinks, bilinear interpolation along an
/// axis that grows, with premultiplied alpha.
///
/// ```swift
/// let half = try Resize(width: photo.width / 2).process(photo)      // height keeps the aspect
/// let exact = try Resize(width: 64, height: 64).process(photo)      // may distort
/// let thumb = try Resize(fitting: TargetSize(maxWidth: 200, maxHeight: 200)).process(photo)
/// ```
public struct Resize: ImageProcessor {
    /// How the output size is chosen.
    public enum Mode: Sendable, Hashable {
        /// Exactly this size.
        case exact(width: Int, height: Int)
        /// This width; the height keeps the aspect ratio.
        case width(Int)
        /// This height; the width keeps the aspect ratio.
        case height(Int)
        /// Scaled down (never up) to fit the box, aspect kept.
        case fit(TargetSize)
    }

    /// The sizing rule.
    public let mode: Mode

    /// Resizes to `width` and/or `height`; a side left out keeps the aspect ratio.
    /// At least one must be given, and both must be positive.
    public init(width: Int? = nil, height: Int? = nil) {
        switch (width, height) {
        case let (width?, height?):
            precondition(width > 0 && height > 0, "Resize needs a positive size")
            mode = .exact(width: width, height: height)
        case let (width?, nil):
            precondition(width > 0, "Resize needs a positive width")
            mode = .width(width)
        case let (nil, height?):
            precondition(height > 0, "Resize needs a positive height")
            mode = .height(height)
        case (nil, nil):
            preconditionFailure("Resize needs a width, a height or both")
        }
    }

    /// Scales down to fit `target`, aspect kept; smaller images are left as they are.
    public init(fitting target: TargetSize) {
        mode = .fit(target)
    }

    public var identifier: String {
        switch mode {
        case .exact(let width, let height): "resize(width=\(width),height=\(height))"
        case .width(let width): "resize(width=\(width),height=auto)"
        case .height(let height): "resize(width=auto,height=\(height))"
        case .fit(let target): "resize(fit=\(target))"
        }
    }

    /// The output size for an input of `width` x `height`.
    ///
    /// ```swift
    /// Resize(width: 100).outputSize(width: 451, height: 300)   // (100, 67)
    /// ```
    public func outputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        func scaled(_ value: Int, by numerator: Int, over denominator: Int) -> Int {
            max(1, Int((Double(value) * Double(numerator) / Double(denominator)).rounded()))
        }
        switch mode {
        case .exact(let w, let h): return (w, h)
        case .width(let w): return (w, scaled(height, by: w, over: width))
        case .height(let h): return (scaled(width, by: h, over: height), h)
        case .fit(let target): return target.fittedSize(width: width, height: height)
        }
    }

    /// The output and the streamed resize's ring (one output row's vertical taps of Float rows of the output width,
    /// plus a source row): nothing proportional to the input's height. A grey or 16-bit input is resized through an
    /// RGBA8 copy (see `processedAsRGBA8`), counted too.
    ///
    /// ```swift
    /// Resize(width: 800).workingSetBytes(for: photo)   // 4000 x 3000 RGBA8: 800 x 600 x 4 + 5 x 800 x 16 + 4000 x 20
    /// ```
    public func workingSetBytes(for bitmap: Bitmap) -> Int {
        let size = outputSize(width: bitmap.width, height: bitmap.height)
        if size.width == bitmap.width && size.height == bitmap.height { return 0 }
        let output = size.width * size.height * 4
        let ring = Resampler.streamingBytes(sourceWidth: bitmap.width, sourceHeight: bitmap.height,
                                            width: size.width, height: size.height)
        let conversion = bitmap.layout == .rgba8 ? 0
            : bitmap.pixelCount * 4 + size.width * size.height * bitmap.layout.eightBit.bytesPerPixel
        return output + ring + conversion
    }

    public func process(_ bitmap: Bitmap, isCancelled: @Sendable () -> Bool) throws -> Bitmap {
        guard bitmap.layout == .rgba8 else {  // grey stays grey, 16 bits become 8 (see processedAsRGBA8)
            return try bitmap.processedAsRGBA8 { try process($0, isCancelled: isCancelled) }
        }
        let size = outputSize(width: bitmap.width, height: bitmap.height)
        return try Resampler.resize(bitmap, width: size.width, height: size.height, isCancelled: isCancelled)
    }
}
