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

    public func process(_ bitmap: Bitmap, isCancelled: @Sendable () -> Bool) throws -> Bitmap {
        let (wr, wg, wb) = coefficients.fixedPoint
        let rowBytes = bitmap.bytesPerRow
        return try bitmap.withUnsafePixels { source in
            try Bitmap(width: bitmap.width, height: bitmap.height) { destination in
                for y in 0..<bitmap.height {
                    if y % Resampler.bandHeight == 0 && isCancelled() { throw ImageError.cancelled }
                    let row = y * rowBytes
                    for i in stride(from: row, to: row + rowBytes, by: 4) {
                        let luma = (wr * UInt32(source[i]) + wg * UInt32(source[i + 1])
                            + wb * UInt32(source[i + 2]) + 32768) >> 16
                        let grey = UInt8(truncatingIfNeeded: luma)
                        destination[i] = grey
                        destination[i + 1] = grey
                        destination[i + 2] = grey
                        destination[i + 3] = source[i + 3]
                    }
                }
            }
        }
    }
}
