/// Why decoding, processing or encoding an image failed.
///
/// ```swift
/// do {
///     show(try ImageDecoder().decode(data))
/// } catch ImageError.unsupportedFormat(.markup) {
///     print("the server sent an HTML page")
/// } catch let error as ImageError {
///     print(error)   // e.g. "image data is truncated"
/// }
/// ```
public enum ImageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The data is not an image LanesImages decodes (PNG, JPEG, WebP, GIF, AVIF): empty, an HTML page, text, or
    /// another image format.
    case unsupportedFormat(SniffedContent)
    /// PNG or JPEG, but a variant the codecs cannot decode (e.g. 12-bit or lossless JPEG).
    case unsupportedVariant(ImageFormat, String)
    /// The data ends before the image does.
    case truncated
    /// The data is malformed; the text says how (bad CRC, bad Huffman code, ...).
    case corrupt(String)
    /// The image claims `width * height` pixels, more than the caller's `limit`.
    /// Raised from the header alone, before any pixel memory is allocated.
    case tooLarge(width: Int, height: Int, limit: Int)
    /// A decoding limit other than the pixel count was reached, checked before allocating: an animation's frame
    /// count, or its frames' bytes together (see ``ImageDecoder/decodeAnimation(_:maxPixels:maxBytes:maxFrames:)``).
    case limitExceeded(String)
    /// Memory for the pixels could not be allocated.
    case outOfMemory
    /// The work was cancelled (the `isCancelled` check returned true).
    case cancelled
    /// Encoding failed; the text says why.
    case encodeFailed(String)
    /// A parameter was out of range; the text says which.
    case invalidArgument(String)

    public var description: String {
        switch self {
        case .unsupportedFormat(let content):
            "unsupported format: the data is \(content), not a PNG, JPEG, WebP, GIF or AVIF image"
        case .unsupportedVariant(let format, let reason):
            "unsupported \(format) variant: \(reason)"
        case .truncated:
            "image data is truncated"
        case .corrupt(let reason):
            "image data is corrupt: \(reason)"
        case .tooLarge(let width, let height, let limit):
            "image of \(width)x\(height) pixels exceeds the limit of \(limit) pixels"
        case .limitExceeded(let reason):
            "image exceeds a decoding limit: \(reason)"
        case .outOfMemory:
            "out of memory for the image"
        case .cancelled:
            "image work was cancelled"
        case .encodeFailed(let reason):
            "encoding failed: \(reason)"
        case .invalidArgument(let reason):
            "invalid argument: \(reason)"
        }
    }
}
