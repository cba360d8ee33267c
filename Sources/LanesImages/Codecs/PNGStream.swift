import CLanesCodecs
import Foundation

extension ImageEncoder {
    /// A PNG encoder fed rows top to bottom (a ``RowStream``), so encoding can start before the whole image exists (for
    /// example while a blur is still producing the rows below). The bytes go to a file descriptor as they are produced,
    /// or into memory (``RowStream/finish()`` returns them). `hasAlpha: false` writes RGB and ignores the alpha byte of
    /// the rows.
    ///
    /// ```swift
    /// let stream = try ImageEncoder.PNGStream(width: 640, height: 480, hasAlpha: false,
    ///                                         compressionLevel: 6, filter: .none)
    /// try bitmap.withUnsafePixels { try stream.write(rows: $0.baseAddress!, count: 480) }
    /// let png = try stream.finish()   // the whole file
    /// ```
    ///
    /// The rows are in the layout given (``PixelLayout/rgba8`` unless given).
    public final class PNGStream: RowStream {

        /// Starts a PNG of `width` x `height` and writes its header. With `fileDescriptor`, bytes
        /// are written there as they are produced (the descriptor is never closed); without it
        /// they are kept in memory. Throws ``ImageError/invalidArgument(_:)`` for an empty size
        /// or a level outside 0...9. Rows are in `layout`: grey layouts write a grey PNG, 16-bit ones a 16-bit PNG;
        /// `hasAlpha: false` drops the alpha channel of a layout with one. `text` pairs are written as `tEXt` chunks
        /// before the image data (keys 1...79 printable ASCII characters, ASCII values; anything else throws
        /// ``ImageError/invalidArgument(_:)``): what the freedesktop thumbnail cache's `Thumb::URI` and `Thumb::MTime`
        /// are (``ThumbnailCache``).
        ///
        /// ```swift
        /// let deep = try ImageEncoder.PNGStream(width: 640, height: 480, hasAlpha: false, layout: .grey16)
        /// let tagged = try ImageEncoder.PNGStream(width: 640, height: 480, hasAlpha: false,
        ///                                         text: [("Software", "Lanes")])
        /// ```
        public init(width: Int, height: Int, hasAlpha: Bool, layout: PixelLayout = .rgba8, compressionLevel: Int = 6,
                    filter: PNGFilter = .adaptive, text: [(key: String, value: String)] = [],
                    fileDescriptor: Int32? = nil) throws {
            guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max) else {
                throw ImageError.invalidArgument("a PNG stream needs a size of 1...\(Int32.max) per side, got \(width)x\(height)")
            }
            guard (0...9).contains(compressionLevel) else {
                throw ImageError.invalidArgument("PNG compression level \(compressionLevel) is not 0...9")
            }
            var options = clanes_encode_options(format: CLANES_FORMAT_PNG, width: width, height: height, layout: layout,
                                                fileDescriptor: fileDescriptor)
            options.has_alpha = hasAlpha ? 1 : 0
            options.compression_level = Int32(compressionLevel)
            options.filters = filter.flags
            // The C strings live until the encoder has started (libpng copies them into its header).
            let strings = text.flatMap { [strdup($0.key), strdup($0.value)] }
            let pointers = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: max(1, strings.count))
            defer {
                pointers.deallocate()
                for string in strings { free(string) }
            }
            for (index, string) in strings.enumerated() { pointers[index] = UnsafePointer(string) }
            options.text = UnsafePointer(pointers)
            options.text_count = Int32(text.count)
            try super.init(options, layout: layout)
        }
    }
}
