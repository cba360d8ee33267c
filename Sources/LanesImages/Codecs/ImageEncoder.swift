import CLanesCodecs
import Foundation

/// Encodes ``Bitmap``s of any ``PixelLayout`` to PNG or JPEG data: grey bitmaps become grey files, 16-bit ones 16-bit
/// PNGs (a JPEG is 8-bit: samples are rounded), and a JPEG, which has no alpha, shows transparent pixels flattened
/// on a background colour.
///
/// ```swift
/// let encoder = ImageEncoder()
/// let png = try encoder.encode(bitmap, as: .png())
/// let fast = try encoder.encode(bitmap, as: .png(compressionLevel: 6, filter: .none))
/// let jpeg = try encoder.encode(bitmap, as: .jpeg(quality: 85))
/// let onBlack = try encoder.encode(logo, as: .jpeg(quality: 90, background: .black))
/// let standardTables = try encoder.encode(bitmap, as: .jpeg(quality: 85, optimizedCoding: false))
/// let webp = try encoder.encode(bitmap, as: .webp(quality: 80))
/// let avif = try encoder.encode(bitmap, as: .avif(quality: 50, effort: 4))
/// ```
public struct ImageEncoder: Sendable {
    /// The output format and its setting.
    public enum Format: Sendable, Hashable {
        /// Lossless PNG; `compressionLevel` is zlib's 0 (none) ... 9 (smallest), `filter` the row
        /// filter(s) libpng may use. Colour is written as RGB when every pixel is opaque, as RGBA otherwise; grey as
        /// grey (with alpha when any pixel is not opaque); at the bitmap's depth, 8 or 16 bits.
        case png(compressionLevel: Int = 6, filter: PNGFilter = .adaptive)
        /// Baseline JPEG; `quality` is 1 ... 100. Grey bitmaps make greyscale JPEGs. Alpha is flattened on
        /// `background` (its alpha is ignored; grey bitmaps use its luma): a transparent pixel shows the background,
        /// never its hidden colour. `optimizedCoding` computes the image's own Huffman tables (files about 7%
        /// smaller; libjpeg then holds every quantised coefficient, about 3 bytes a pixel, until the end); `false`
        /// uses the standard tables, so a ``JPEGStream`` holds a few rows whatever the height (what libvips does).
        case jpeg(quality: Int = 85, background: RGBA = .white, optimizedCoding: Bool = true)
        /// WebP through libwebp (``WebPStream``): `quality` 0...100, `lossless` for an exact (VP8L) file, `effort`
        /// 0...6 (libwebp's method). Alpha is kept unless every pixel is opaque; grey and 16-bit bitmaps are written
        /// as RGB(A) 8-bit.
        case webp(quality: Int = 75, lossless: Bool = false, effort: Int = 4)
        /// AVIF through libavif (``AVIFStream``): 8-bit 4:2:0; `quality` 0...100, `effort` 0...9. Alpha as for WebP.
        case avif(quality: Int = 50, effort: Int = 4)
    }

    /// The PNG row filter: how each row is predicted from its neighbours before zlib compresses it.
    /// `.none` is the fastest to encode (and what libvips' `pngsave` uses by default); `.adaptive`
    /// lets libpng pick the best of the five for every row, giving the smallest files of photos.
    ///
    /// ```swift
    /// let png = try ImageEncoder().encode(bitmap, as: .png(filter: .up))
    /// ImageEncoder.PNGFilter(rawValue: "none")   // .none
    /// ```
    public enum PNGFilter: String, Sendable, Hashable, CaseIterable {
        /// Rows stored as they are.
        case none
        /// Each byte minus the one a pixel to the left.
        case sub
        /// Each byte minus the one above.
        case up
        /// Each byte minus the mean of left and above.
        case average
        /// Each byte minus the Paeth predictor of left, above and upper-left.
        case paeth
        /// libpng picks one of the five per row (its minimum-sum heuristic).
        case adaptive

        var flags: Int32 {
            switch self {
            case .none: CLANES_PNG_FILTER_NONE
            case .sub: CLANES_PNG_FILTER_SUB
            case .up: CLANES_PNG_FILTER_UP
            case .average: CLANES_PNG_FILTER_AVG
            case .paeth: CLANES_PNG_FILTER_PAETH
            case .adaptive: CLANES_PNG_FILTER_ALL
            }
        }
    }

    /// Creates an encoder. It holds no state; one can be shared freely.
    public init() {}

    /// The encoded bytes of `bitmap`.
    ///
    /// ```swift
    /// try ImageEncoder().encode(bitmap, as: .jpeg(quality: 90)).write(to: url)
    /// ```
    public func encode(_ bitmap: Bitmap, as format: Format) throws -> Data {
        switch format {
        case .webp, .avif: return try encodeWhole(bitmap, as: format)
        case .png, .jpeg: break
        }
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = CodecBridge.messageBuffer()
        let status: Int32 = bitmap.withUnsafePixels { pixels in
            switch format {
            case .png(let level, let filter):
                guard (0...9).contains(level) else { return CLANES_ERR_ARGUMENT }
                return clanes_png_encode_layout(pixels.baseAddress, bitmap.bytesPerRow, UInt32(bitmap.width),
                                                UInt32(bitmap.height), Int32(bitmap.layout.channels),
                                                Int32(bitmap.layout.bytesPerSample), Int32(level), filter.flags,
                                                &output, &size, &message, message.count)
            case .jpeg(let quality, let background, let optimized):
                guard (1...100).contains(quality) else { return CLANES_ERR_ARGUMENT }
                return clanes_jpeg_encode_layout(pixels.baseAddress, bitmap.bytesPerRow, UInt32(bitmap.width),
                                                 UInt32(bitmap.height), Int32(bitmap.layout.channels),
                                                 Int32(bitmap.layout.bytesPerSample), background.rgb24, Int32(quality),
                                                 optimized ? 1 : 0, &output, &size, &message, message.count)
            case .webp, .avif:
                return CLANES_ERR_ARGUMENT // encoded above
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

    /// A WebP or AVIF of the whole bitmap, through its row stream.
    private func encodeWhole(_ bitmap: Bitmap, as format: Format) throws -> Data {
        let rgba = bitmap.layout == .rgba8 ? bitmap : bitmap.converted(to: .rgba8)
        let stream: any RowEncoder
        switch format {
        case .webp(let quality, let lossless, let effort):
            stream = try WebPStream(width: rgba.width, height: rgba.height, hasAlpha: !bitmap.isOpaque,
                                    quality: quality, lossless: lossless, effort: effort)
        case .avif(let quality, let effort):
            stream = try AVIFStream(width: rgba.width, height: rgba.height, hasAlpha: !bitmap.isOpaque,
                                    quality: quality, effort: effort)
        case .png, .jpeg:
            throw ImageError.invalidArgument("\(format) is not WebP or AVIF")
        }
        try stream.write(rows: 0..<rgba.height, of: rgba)
        return try stream.finish()
    }
}
