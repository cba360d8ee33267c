import CLanesCodecs

/// The one decoder (`clanes_decoder.h`) for every format: a context over a source — bytes in memory, a regular file's
/// descriptor, or bytes pushed as they arrive — that reads the header (checking the pixel limit before anything the
/// size of an image is allocated), then decodes whole, in rows, incrementally with previews, or frame by frame.
/// ``ImageDecoder``, ``ImageRowDecoder``, ``IncrementalDecoder``, animations and the pipeline all decode through it;
/// its status codes become ``ImageError``s in one place (`error(_:)`).
///
/// One thread at a time may use a context; memory it is given must outlive it.
///
/// ```swift
/// let context = try DecoderContext(.memory(bytes), options: .init(scaleDenominator: 8))
/// let info = try context.header()                       // format, size, orientation, embedded thumbnail
/// let quick = try context.decodeWhole()                  // a JPEG at 1/8, decoded in the DCT domain
/// ```
package final class DecoderContext {
    /// Where the encoded bytes come from.
    package enum Source {
        /// Bytes in memory (they must outlive the context).
        case memory(UnsafeRawBufferPointer)
        /// The regular file open at `descriptor` of `size` bytes, read with `pread` (never closed, offset untouched).
        case file(descriptor: Int32, size: Int)
        /// Bytes handed to ``push(_:isLast:)`` as they arrive.
        case pushed
    }

    /// How to decode.
    package struct Options {
        /// A header with more stored pixels fails with ``ImageError/tooLarge(width:height:limit:)``.
        package var maxPixels = ImageDecoder.defaultMaxPixels
        /// Frames: the frames decoded plus the decoder's canvases at most (0: no limit); a whole PNG/JPEG: its bytes.
        package var maxBytes = 0
        /// Frames: at most this many (0: no limit besides `maxBytes`).
        package var maxFrames = 0
        /// Frames: only the first will be read (the limits count one).
        package var firstFrameOnly = false
        /// A JPEG decoded at 1/2, 1/4 or 1/8 in the DCT domain.
        package var scaleDenominator = 1
        /// A still WebP decoded straight to this size; an opaque GIF's first frame shrunk on load towards it.
        package var scaledSize: (width: Int, height: Int)?
        /// The rows' layout (from memory or a file; a PNG may ask for grey or 16-bit, a JPEG gives RGBA8).
        package var layout = PixelLayout.rgba8
        /// Pushed bytes: keep what a progressive file's previews need.
        package var previews = false
        /// Pushed bytes: keep a copy of every byte so the image can also be decoded whole.
        package var keepsInput = false

        package init(maxPixels: Int = ImageDecoder.defaultMaxPixels, scaleDenominator: Int = 1,
                     layout: PixelLayout = .rgba8) {
            self.maxPixels = maxPixels
            self.scaleDenominator = scaleDenominator
            self.layout = layout
        }
    }

    /// What frames come out (``startFrames()``).
    package struct FramesReport {
        package let width: Int
        package let height: Int
        package let frameCount: Int
        /// 0: loop for ever.
        package let loopCount: Int
        package let isOpaque: Bool
        /// The decoder's own buffers (canvases, planes), besides the frames it hands out.
        package let heldBytes: Int
    }

    private let context: OpaquePointer
    package let options: Options
    /// The format the first bytes showed (for errors before the header is read).
    private var sniffed: ImageFormat?
    private var info: ImageInfo?

    package init(_ source: Source, options: Options = Options()) throws {
        var raw = clanes_decoder_options()
        raw.max_pixels = UInt64(max(0, options.maxPixels))
        raw.max_bytes = UInt64(max(0, options.maxBytes))
        raw.max_frames = UInt32(clamping: max(0, options.maxFrames))
        raw.first_frame_only = options.firstFrameOnly ? 1 : 0
        raw.scale_denom = Int32(clamping: options.scaleDenominator)
        if let scaled = options.scaledSize {
            raw.scaled_width = UInt32(clamping: max(0, scaled.width))
            raw.scaled_height = UInt32(clamping: max(0, scaled.height))
        }
        raw.channels = Int32(options.layout.channels)
        raw.bytes_per_sample = Int32(options.layout.bytesPerSample)
        raw.previews = options.previews ? 1 : 0
        raw.keep_input = options.keepsInput ? 1 : 0
        var created: OpaquePointer?
        let status = clanes_decoder_create(&raw, &created)
        guard let created else { throw ImageError.outOfMemory }
        context = created
        self.options = options
        try check(status)
        switch source {
        case .memory(let bytes):
            sniffed = ImageFormat.sniff(bytes)
            try check(clanes_decoder_set_buffer(context, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                                bytes.count))
        case .file(let descriptor, let size):
            try check(clanes_decoder_set_fd(context, descriptor, max(0, size)))
        case .pushed:
            try check(clanes_decoder_set_push(context))
        }
    }

    deinit {
        clanes_decoder_destroy(context)
    }

    // MARK: Header

    /// The header, read without decoding pixels (a pushed source: ``ImageError/truncated`` until it has arrived).
    package func header() throws -> ImageInfo {
        if let info { return info }
        var raw = clanes_info()
        let status = clanes_decoder_header(context, &raw)
        if raw.width > 0 { info = Self.info(raw) }
        try check(status)
        return info!
    }

    /// The size a whole decode or the rows have: the header's, a JPEG's after its DCT scale.
    package func scaledSize() throws -> (width: Int, height: Int) {
        var width: UInt32 = 0, height: UInt32 = 0
        try check(clanes_decoder_scaled_size(context, &width, &height))
        return (Int(width), Int(height))
    }

    // MARK: Whole

    /// The whole image as a new bitmap: a PNG in `layout`, a JPEG in RGBA8 (grey8 for a greyscale one when `layout`
    /// is grey) at its DCT scale, a frame format's first frame in RGBA8.
    package func decodeWhole(layout: PixelLayout = .rgba8) throws -> Bitmap {
        let info = try header()
        let size: (width: Int, height: Int)
        var layout = layout
        if info.format.decodesFrames {
            let report = try startFrames()
            size = (report.width, report.height)
            layout = .rgba8
        } else {
            size = try scaledSize()
        }
        return try Bitmap(width: size.width, height: size.height, layout: layout) { pixels in
            var image = clanes_pixels(pixels: pixels.baseAddress, bytes_per_row: size.width * layout.bytesPerPixel,
                                      width: UInt32(size.width), height: UInt32(size.height),
                                      channels: Int32(layout.channels), bytes_per_sample: Int32(layout.bytesPerSample))
            try check(clanes_decoder_decode(context, &image)) // a half-written buffer is released, never exposed
        }
    }

    // MARK: Embedded thumbnail

    /// The embedded thumbnail the header reports — a JPEG's Exif thumbnail, a HEIF thumbnail item, a JPEG XL preview
    /// frame — decoded to RGBA8 and upright (a JPEG's Exif orientation applied, as to its image); `nil` when the file
    /// carries none. One that lies (larger than its image, another size than its header said, cut short) throws.
    package func decodeEmbeddedThumbnail() throws -> Bitmap? {
        let info = try header()
        guard let thumbnail = info.embeddedThumbnail else { return nil }
        // The C side takes the stored size: a JPEG's Exif thumbnail is stored as its image is.
        let swaps = info.format == .jpeg && info.orientation.swapsDimensions
        let (width, height) = swaps ? (thumbnail.height, thumbnail.width) : (thumbnail.width, thumbnail.height)
        let bitmap = try Bitmap(width: width, height: height, layout: .rgba8) { pixels in
            var image = clanes_pixels(pixels: pixels.baseAddress, bytes_per_row: width * 4,
                                      width: UInt32(width), height: UInt32(height), channels: 4, bytes_per_sample: 1)
            try check(clanes_decoder_decode_thumbnail(context, &image))
        }
        return info.format == .jpeg ? info.orientation.apply(to: bitmap) : bitmap
    }

    // MARK: Rows

    /// Starts rows (a PNG or JPEG from memory or a file) in the options' layout.
    package func startRows() throws -> clanes_row_layout {
        var layout = clanes_row_layout()
        try check(clanes_decoder_start_rows(context, &layout))
        return layout
    }

    /// Writes up to `count` of the next rows; how many it wrote (from memory or a file: `count`; pushed bytes: as
    /// many as have arrived, 0 meaning push more).
    package func readRows(_ count: Int, into destination: UnsafeMutableRawPointer, bytesPerRow: Int) throws -> Int {
        var delivered: UInt32 = 0
        try check(clanes_decoder_read_rows(context, destination.assumingMemoryBound(to: UInt8.self), bytesPerRow,
                                           UInt32(clamping: count), &delivered))
        return Int(delivered)
    }

    /// Rows handed out so far.
    package var rowsRead: Int { Int(clanes_decoder_rows_read(context)) }

    // MARK: Pushed bytes

    /// Appends the next bytes of a pushed source (`isLast`: none will follow) and decodes as far as they allow.
    package func push(_ bytes: UnsafeRawBufferPointer, isLast: Bool) throws {
        if sniffed == nil { sniffed = ImageFormat.sniff(bytes) }
        try check(clanes_decoder_push(context, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count,
                                      isLast ? 1 : 0))
    }

    /// Where a pushed source stands.
    package var progress: clanes_progress {
        var progress = clanes_progress()
        _ = clanes_decoder_progress(context, &progress)
        return progress
    }

    /// Renders the latest preview of a progressive PNG or JPEG (RGBA8, the rows' size).
    package func preview(into destination: UnsafeMutableRawPointer, bytesPerRow: Int) throws {
        try check(clanes_decoder_preview(context, destination.assumingMemoryBound(to: UInt8.self), bytesPerRow))
    }

    // MARK: Frames

    /// Starts frames (WebP, GIF, AVIF, HEIF, JPEG XL): the limits are checked before anything their size is made.
    package func startFrames() throws -> FramesReport {
        var report = clanes_frames_report()
        try check(clanes_decoder_start_frames(context, &report))
        return FramesReport(width: Int(report.width), height: Int(report.height),
                            frameCount: Int(report.frame_count), loopCount: Int(report.loop_count),
                            isOpaque: report.opaque != 0, heldBytes: report.held_bytes)
    }

    /// The next frame (RGBA8 of the report's size) and how long it is shown, in milliseconds as the file says.
    package func nextFrame(width: Int, height: Int) throws -> (bitmap: Bitmap, delayMilliseconds: Int) {
        var delay: Int32 = 0
        let bitmap = try Bitmap(width: width, height: height) { pixels in
            try check(clanes_decoder_next_frame(context, pixels.baseAddress, width * 4, &delay))
        }
        return (bitmap, Int(delay))
    }

    // MARK: PNG text

    /// A PNG's text chunks before its image data as `key NUL value NUL` pairs, at most `capacity` bytes.
    package func readText(capacity: Int) throws -> [CChar] {
        var buffer = [CChar](repeating: 0, count: capacity)
        var length = 0
        var count: Int32 = 0
        try check(clanes_decoder_read_text(context, &buffer, buffer.count, &length, &count))
        return Array(buffer[..<length])
    }

    // MARK: Errors

    /// The context's last message.
    package var message: String { String(cString: clanes_decoder_message(context)) }

    private func check(_ status: Int32) throws {
        if let error = error(status) { throw error }
    }

    /// The ``ImageError`` for a status: the one place the C statuses are translated.
    private func error(_ status: Int32) -> ImageError? {
        let format = info?.format ?? sniffed ?? .png
        switch status {
        case CLANES_OK: return nil
        case CLANES_ERR_TRUNCATED: return .truncated
        case CLANES_ERR_CORRUPT, CLANES_ERR_IO: return .corrupt(message)
        case CLANES_ERR_NO_MEMORY: return .outOfMemory
        case CLANES_ERR_ARGUMENT: return .invalidArgument(message)
        case CLANES_ERR_UNSUPPORTED: return .unsupportedVariant(format, message)
        case CLANES_ERR_TOO_LARGE:
            if let info, let pixels = info.pixelCount, pixels > options.maxPixels {
                return .tooLarge(width: info.width, height: info.height, limit: options.maxPixels)
            }
            return format.decodesFrames ? .limitExceeded(message) : .unsupportedVariant(format, message)
        default: return .corrupt("codec status \(status): \(message)")
        }
    }

    private static func info(_ raw: clanes_info) -> ImageInfo {
        let format: ImageFormat = switch raw.format {
        case CLANES_FORMAT_PNG: .png
        case CLANES_FORMAT_JPEG: .jpeg
        case CLANES_FORMAT_WEBP: .webp
        case CLANES_FORMAT_GIF: .gif
        case CLANES_FORMAT_AVIF: .avif
        case CLANES_FORMAT_HEIF: .heif
        default: .jxl
        }
        let orientation = ExifOrientation(rawValue: Int(raw.orientation)) ?? .up
        var thumbnail: ImageInfo.EmbeddedThumbnail?
        if raw.thumbnail_width > 0 && raw.thumbnail_height > 0 {
            // A JPEG's Exif thumbnail is stored as the main image is: upright after the same orientation.
            let (width, height) = (Int(raw.thumbnail_width), Int(raw.thumbnail_height))
            let swaps = format == .jpeg && orientation.swapsDimensions
            let start = Int(raw.thumbnail_offset), length = Int(raw.thumbnail_length)
            thumbnail = .init(width: swaps ? height : width, height: swaps ? width : height,
                              byteRange: length > 0 ? start..<(start + length) : nil)
        }
        return ImageInfo(format: format, width: Int(raw.width), height: Int(raw.height),
                         orientation: orientation,
                         components: Int(raw.components), bitDepth: Int(raw.bit_depth),
                         isProgressive: raw.progressive != 0,
                         storedLayout: PixelLayout(channels: Int(raw.layout_channels),
                                                   bytesPerSample: Int(raw.layout_bytes)) ?? .rgba8,
                         isAnimated: raw.animated != 0, embeddedThumbnail: thumbnail)
    }
}
