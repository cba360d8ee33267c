import CLanesCodecs
import Foundation

/// Encodes ``Bitmap``s to PNG or JPEG data.
///
/// ```swift
/// let encoder = ImageEncoder()
/// let png = try encoder.encode(bitmap, as: .png())
/// let jpeg = try encoder.encode(bitmap, as: .jpeg(quality: 85))
/// ```
public struct ImageEncoder: Sendable {
    /// The output format and its setting.
    public enum Format: Sendable, Hashable {
        /// Lossless PNG; `compressionLevel` is zlib's 0 (none) ... 9 (smallest). Written as RGB
        /// when every pixel is opaque, as RGBA otherwise.
        case png(compressionLevel: Int = 6)
        /// Baseline JPEG; `quality` is 1 ... 100. Alpha is dropped.
        case jpeg(quality: Int = 85)
    }

    /// Creates an encoder. It holds no state; one can be shared freely.
    public init() {}

    /// The encoded bytes of `bitmap`.
    ///
    /// ```swift
    /// try ImageEncoder().encode(bitmap, as: .jpeg(quality: 90)).write(to: url)
    /// ```
    public func encode(_ bitmap: Bitmap, as format: Format) throws -> Data {
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = CodecBridge.messageBuffer()
        let status: Int32 = bitmap.withUnsafePixels { pixels in
            switch format {
            case .png(let level):
                guard (0...9).contains(level) else { return CLANES_ERR_ARGUMENT }
                return clanes_png_encode(pixels.baseAddress, bitmap.bytesPerRow, UInt32(bitmap.width),
                                         UInt32(bitmap.height), Int32(level), &output, &size,
                                         &message, message.count)
            case .jpeg(let quality):
                guard (1...100).contains(quality) else { return CLANES_ERR_ARGUMENT }
                return clanes_jpeg_encode(pixels.baseAddress, bitmap.bytesPerRow, UInt32(bitmap.width),
                                          UInt32(bitmap.height), Int32(quality), &output, &size,
                                          &message, message.count)
            }
        }
        defer { clanes_free(output) }
        if status == CLANES_ERR_ARGUMENT && message.first == 0 {
            throw ImageError.invalidArgument("\(format) is out of range")
        }
        if let error = CodecBridge.encodeError(status, message) {
            throw error
        }
        guard let output else {
            throw ImageError.encodeFailed("the encoder returned no data")
        }
        return Data(bytes: output, count: size)
    }
}
