import CLanesCodecs
import Foundation

extension ImageEncoder {
    /// A WebP encoder fed rows top to bottom (RGBA8), like ``PNGStream``. libwebp encodes a whole picture, so the rows
    /// are gathered into one canvas (4 bytes a pixel) and encoded at ``RowStream/finish()``; the file goes to a
    /// descriptor or into memory. `quality` is 0...100 (for a lossless file: how hard libwebp compresses), `effort`
    /// libwebp's method 0 (fastest) ... 6 (smallest), 4 by default as in libvips; `hasAlpha: false` ignores the alpha
    /// bytes.
    ///
    /// ```swift
    /// let stream = try ImageEncoder.WebPStream(width: 640, height: 480, hasAlpha: false, quality: 75)
    /// try stream.write(rows: 0..<480, of: bitmap)
    /// let webp = try stream.finish()
    /// ```
    public final class WebPStream: RowStream {

        /// Starts a WebP of `width` x `height`; throws ``ImageError/invalidArgument(_:)`` for a size beyond
        /// 16383 per side, a quality outside 0...100 or an effort outside 0...6.
        ///
        /// ```swift
        /// let exact = try ImageEncoder.WebPStream(width: 64, height: 64, hasAlpha: true, lossless: true)
        /// ```
        public init(width: Int, height: Int, hasAlpha: Bool, quality: Int = 75, lossless: Bool = false, effort: Int = 4,
                    fileDescriptor: Int32? = nil) throws {
            try super.init(.canvas(CLANES_FORMAT_WEBP, codec: "WebP", width: width, height: height, hasAlpha: hasAlpha,
                                   quality: quality, lossless: lossless, effort: effort, threads: 1,
                                   fileDescriptor: fileDescriptor), layout: .rgba8)
        }
    }

    /// An AVIF encoder fed rows top to bottom (RGBA8), like ``WebPStream``: 8-bit 4:2:0, alpha kept when `hasAlpha`.
    /// `quality` 0...100 sets the AV1 quantizer (`(100 - quality) * 63 / 100`, as libavif 1.x's quality does; 50 by
    /// default as in libvips), `effort` 0 (fastest, AV1 speed 9) ... 9 (slowest, speed 0), 4 by default as in
    /// libvips; `threads` the AV1 encoder's threads.
    ///
    /// ```swift
    /// let stream = try ImageEncoder.AVIFStream(width: 640, height: 480, hasAlpha: false, quality: 50, effort: 4)
    /// try stream.write(rows: 0..<480, of: bitmap)
    /// let avif = try stream.finish()
    /// ```
    public final class AVIFStream: RowStream {

        /// Starts an AVIF of `width` x `height`; throws ``ImageError/invalidArgument(_:)`` for a quality outside
        /// 0...100, an effort outside 0...9 or threads outside 1...64.
        ///
        /// ```swift
        /// let fast = try ImageEncoder.AVIFStream(width: 64, height: 64, hasAlpha: true, effort: 0, threads: 2)
        /// ```
        public init(width: Int, height: Int, hasAlpha: Bool, quality: Int = 50, effort: Int = 4, threads: Int = 1,
                    fileDescriptor: Int32? = nil) throws {
            try super.init(.canvas(CLANES_FORMAT_AVIF, codec: "AVIF", width: width, height: height, hasAlpha: hasAlpha,
                                   quality: quality, lossless: false, effort: effort, threads: threads,
                                   fileDescriptor: fileDescriptor), layout: .rgba8)
        }
    }
}

extension clanes_encode_options {
    /// The options of a format whose library encodes a whole picture (WebP, AVIF: RGBA8 rows gathered into a canvas),
    /// checked here first so a bad value fails with the option's name before any pixel is read.
    static func canvas(_ format: Int32, codec: String, width: Int, height: Int, hasAlpha: Bool, quality: Int,
                       lossless: Bool, effort: Int, threads: Int, fileDescriptor: Int32?) throws -> Self {
        guard width > 0, height > 0, width <= 65535, height <= 65535 else {
            throw ImageError.invalidArgument("a \(codec) stream needs a size of 1...65535 per side, got \(width)x\(height)")
        }
        guard (0...100).contains(quality) else { throw ImageError.invalidArgument("\(codec) quality \(quality) is not 0...100") }
        guard (0...64).contains(effort), (1...64).contains(threads) else {
            throw ImageError.invalidArgument("\(codec) effort \(effort) or threads \(threads) out of range")
        }
        var options = clanes_encode_options(format: format, width: width, height: height, layout: .rgba8,
                                            fileDescriptor: fileDescriptor)
        options.has_alpha = hasAlpha ? 1 : 0
        options.quality = Int32(quality)
        options.lossless = lossless ? 1 : 0
        options.effort = Int32(effort)
        options.threads = Int32(threads)
        return options
    }
}
