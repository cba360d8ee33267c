/// Converts to grey by luma, keeping alpha.
///
/// ```swift
/// let grey = try Greyscale().process(photo)              // Rec. 601: 0.299 R + 0.587 G + 0.114 B
/// let hd = try Greyscale(coefficients: .rec709).process(photo)
/// ```
public struct Greyscale: ImageProcessor {
    /// Luma weights.
    public enum Coefficients: String, Sendable, Hashable {
        /// 0.299 R + 0.587 G + 0.114 B (SDTV, JPEG, most "convert to grey" tools).
        case rec601
        /// 0.2126 R + 0.7152 G + 0.0722 B (HDTV / sRGB primaries).
        case rec709

        /// Weights in 1/65536 units; each set sums to exactly 65536.
        var fixedPoint: (red: UInt32, green: UInt32, blue: UInt32) {
            switch self {
            case .rec601: (19595, 38470, 7471)
            case .rec709: (13933, 46871, 4732)
            }
        }
    }

    /// The luma weights used.
    public let coefficients: Coefficients

    /// A greyscale conversion with the given luma weights.
    public init(coefficients: Coefficients = .rec601) {
        self.coefficients = coefficients
    }

    public var identifier: String { "greyscale(\(coefficients.rawValue))" }

    /// Keeps the layout: a grey bitmap is returned as it is, a colour one stays RGBA (red = green = blue = luma, alpha
    /// kept) at its own depth, so a 16-bit image stays 16-bit. (`Bitmap.converted(to: .grey8)` makes it one channel.)
    public func process(_ bitmap: Bitmap, isCancelled: @Sendable () -> Bool) throws -> Bitmap {
        if bitmap.layout.isGrey {
            if isCancelled() { throw ImageError.cancelled }
            return bitmap
        }
        let rowBytes = bitmap.bytesPerRow
        return try bitmap.withUnsafePixels { input in
            try Bitmap(width: bitmap.width, height: bitmap.height, layout: bitmap.layout) { output in
                for y in 0..<bitmap.height {
                    if y % Resampler.bandHeight == 0 && isCancelled() { throw ImageError.cancelled }
                    convert(row: UnsafeRawPointer(input.baseAddress! + y * rowBytes),
                            into: UnsafeMutableRawPointer(output.baseAddress! + y * rowBytes),
                            pixels: bitmap.width, bytesPerSample: bitmap.layout.bytesPerSample)
                }
            }
        }
    }

    /// One RGBA row of `pixels` (8- or 16-bit samples) to luma in red, green and blue, alpha kept: the one kernel of
    /// ``process(_:isCancelled:)`` and ``GreyscaleRows``.
    func convert(row source: UnsafeRawPointer, into destination: UnsafeMutableRawPointer, pixels: Int,
                 bytesPerSample bytes: Int) {
        let (wr, wg, wb) = coefficients.fixedPoint
        for i in stride(from: 0, to: pixels * 4, by: 4) {
            if bytes == 1 {
                let luma = (wr * UInt32(source.load(fromByteOffset: i, as: UInt8.self))
                    + wg * UInt32(source.load(fromByteOffset: i + 1, as: UInt8.self))
                    + wb * UInt32(source.load(fromByteOffset: i + 2, as: UInt8.self)) + 32768) >> 16
                let grey = UInt8(truncatingIfNeeded: luma)
                destination.storeBytes(of: grey, toByteOffset: i, as: UInt8.self)
                destination.storeBytes(of: grey, toByteOffset: i + 1, as: UInt8.self)
                destination.storeBytes(of: grey, toByteOffset: i + 2, as: UInt8.self)
                destination.storeBytes(of: source.load(fromByteOffset: i + 3, as: UInt8.self),
                                       toByteOffset: i + 3, as: UInt8.self)
            } else {
                let r = UInt64(source.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self))
                let g = UInt64(source.loadUnaligned(fromByteOffset: i * 2 + 2, as: UInt16.self))
                let b = UInt64(source.loadUnaligned(fromByteOffset: i * 2 + 4, as: UInt16.self))
                let grey = UInt16(truncatingIfNeeded: (UInt64(wr) * r + UInt64(wg) * g + UInt64(wb) * b + 32768) >> 16)
                for k in 0..<3 { destination.storeBytes(of: grey, toByteOffset: i * 2 + k * 2, as: UInt16.self) }
                destination.storeBytes(of: source.loadUnaligned(fromByteOffset: i * 2 + 6, as: UInt16.self),
                                       toByteOffset: i * 2 + 6, as: UInt16.self)
            }
        }
    }
}
