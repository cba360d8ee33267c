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
        // WebP and AVIF take RGBA8 rows (their libraries encode one RGBA picture).
        let rows: Bitmap
        switch format {
        case .webp, .avif: rows = bitmap.layout == .rgba8 ? bitmap : bitmap.converted(to: .rgba8)
        case .png, .jpeg: rows = bitmap
        }
        return try Self.stream(for: rows, as: format).encodeAll(of: rows)
    }

    /// The row encoder that ``encode(_:as:)`` feeds `bitmap`'s rows to: a PNG, WebP or AVIF without alpha when every
    /// pixel is opaque. With `fileDescriptor` the bytes go there.
    static func stream(for bitmap: Bitmap, as format: Format, fileDescriptor: Int32? = nil) throws -> any RowEncoder {
        switch format {
        case .png(let level, let filter):
            return try PNGStream(width: bitmap.width, height: bitmap.height, hasAlpha: !bitmap.isOpaque,
                                 layout: bitmap.layout, compressionLevel: level, filter: filter,
                                 fileDescriptor: fileDescriptor)
        case .jpeg(let quality, let background, let optimized):
            return try JPEGStream(width: bitmap.width, height: bitmap.height, layout: bitmap.layout, quality: quality,
                                  background: background, optimizedCoding: optimized, fileDescriptor: fileDescriptor)
        case .webp(let quality, let lossless, let effort):
            return try WebPStream(width: bitmap.width, height: bitmap.height, hasAlpha: !bitmap.isOpaque,
                                  quality: quality, lossless: lossless, effort: effort, fileDescriptor: fileDescriptor)
        case .avif(let quality, let effort):
            return try AVIFStream(width: bitmap.width, height: bitmap.height, hasAlpha: !bitmap.isOpaque,
                                  quality: quality, effort: effort, fileDescriptor: fileDescriptor)
        }
    }
}

extension RowEncoder {
    /// Writes every row of `bitmap`, `rowsPerCall` at a time (telling `rowsDone` how many are in after each), and
    /// finishes the file.
    func encodeAll(of bitmap: Bitmap, rowsPerCall: Int = Int.max, rowsDone: (Int) -> Void = { _ in }) throws -> Data {
        var start = 0
        while start < bitmap.height {
            let end = min(bitmap.height, start + min(rowsPerCall, bitmap.height - start))
            try write(rows: start..<end, of: bitmap)
            rowsDone(end)
            start = end
        }
        return try finish()
    }
}
