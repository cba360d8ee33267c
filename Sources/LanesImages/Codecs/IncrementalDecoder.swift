import CLanesCodecs
import Foundation

/// Decodes a PNG or JPEG from bytes as they arrive (a download), never waiting for more: ``append(_:isLast:)``
/// takes the next bytes, ``readRows(_:into:bytesPerRow:)`` hands out as many of the next rows as the bytes so far
/// allow, and a progressive JPEG (after each scan) or an interlaced PNG (after each Adam7 pass) can render a
/// ``preview()`` of what has arrived. Rows and previews are RGBA8 in stored orientation.
///
/// The format is recognised from the first bytes; anything but PNG and JPEG throws
/// ``ImageError/unsupportedVariant(_:_:)`` (decode those whole). Limits are checked from the header, before any
/// image-sized allocation. One thread at a time may use a decoder.
///
/// ```swift
/// let incremental = IncrementalDecoder(previews: true)
/// try incremental.append(firstChunk)
/// if incremental.previewsReady > 0 { show(try incremental.preview()) }
/// try incremental.append(lastChunk, isLast: true)
/// let image = try incremental.decodeRemainingImage()
/// ```
public final class IncrementalDecoder {
    /// Whether previews are kept (a progressive JPEG is then decoded in buffered-image mode).
    let keepsPreviews: Bool
    /// Images whose header claims more pixels fail before any allocation.
    public let maxPixels: Int
    /// A JPEG is decoded at 1/this in the DCT domain (1, 2, 4, 8; a PNG at 1 only).
    public let scaleDenominator: Int
    /// The format, once the first bytes told it.
    public private(set) var format: ImageFormat?
    private var context: DecoderContext?
    private var state = clanes_progress()
    /// Bytes that arrived before the format was known.
    private var head = Data()
    private var ended = false

    /// A decoder that renders previews when `previews` is true, refuses headers over `maxPixels`, and decodes a
    /// JPEG at `1/scaleDenominator` (1, 2, 4 or 8; a PNG at 1 only).
    ///
    /// ```swift
    /// let decoder = IncrementalDecoder(previews: false, maxPixels: 24_000_000, scaleDenominator: 2)
    /// ```
    public init(previews: Bool = true, maxPixels: Int = ImageDecoder.defaultMaxPixels, scaleDenominator: Int = 1) {
        keepsPreviews = previews
        self.maxPixels = maxPixels
        self.scaleDenominator = scaleDenominator
    }

    /// Whether the header has been read (``width``, ``height``, ``isProgressive`` are known).
    public var hasHeader: Bool { state.header_ready != 0 }
    /// Width of the rows in pixels, a JPEG's scaled (0 before the header).
    public var width: Int { Int(state.width) }
    /// Height in pixels (0 before the header).
    public var height: Int { Int(state.height) }
    /// A progressive JPEG or an interlaced PNG: previews come as it arrives, rows only after its last byte.
    public var isProgressive: Bool { state.progressive != 0 }
    /// Scans (JPEG) or passes (PNG) complete so far whose preview ``preview()`` can render (0: none yet, or done).
    public var previewsReady: Int { Int(state.previews_ready) }
    /// Rows handed out so far.
    public var rowsRead: Int { Int(state.rows_read) }
    /// Bytes the decoder holds: unconsumed input, libpng's/libjpeg's buffers, rows decoded ahead.
    public var retainedBytes: Int { Int(state.held_bytes) }
    /// Every alpha is 255.
    public var isOpaque: Bool { state.opaque != 0 }

    /// Appends the next bytes of the image (`isLast`: no more will come) and decodes as far as they allow.
    /// Throws the decoder's error for bad input, ``ImageError/truncated`` when the last bytes end the image early.
    ///
    /// ```swift
    /// try incremental.append(chunk)
    /// ```
    public func append(_ data: Data, isLast: Bool = false) throws {
        ended = ended || isLast
        if context == nil {
            head.append(data)
            guard head.count >= 8 || ended else { return }
            try open()
            let pending = head
            head = Data()
            return try feed(pending)
        }
        try feed(data)
    }

    /// Renders what has arrived of a progressive image (after ``previewsReady`` scans or passes) as a bitmap.
    ///
    /// ```swift
    /// if incremental.previewsReady > 0 { cell.image = try incremental.preview() }
    /// ```
    public func preview() throws -> Bitmap {
        guard let context, previewsReady > 0 else {
            throw ImageError.invalidArgument("no preview is ready")
        }
        defer { state = context.progress }
        return try Bitmap(width: width, height: height) { pixels in
            try context.preview(into: pixels.baseAddress!, bytesPerRow: width * 4)
        }
    }

    /// Writes up to `count` of the next rows to `destination`, `bytesPerRow` apart; returns how many it wrote
    /// (0: append more bytes first). Throws ``ImageError/truncated`` when the input ended before them.
    ///
    /// ```swift
    /// let got = try incremental.readRows(1, into: buffer, bytesPerRow: incremental.width * 4)
    /// ```
    public func readRows(_ count: Int, into destination: UnsafeMutableRawPointer, bytesPerRow: Int) throws -> Int {
        guard let context, hasHeader else { throw ImageError.invalidArgument("no header yet") }
        guard count >= 0, count <= height - rowsRead, bytesPerRow >= width * 4 else {
            throw ImageError.invalidArgument("cannot read \(count) row(s) at row \(rowsRead) of \(height)")
        }
        defer { state = context.progress }
        return try context.readRows(count, into: destination, bytesPerRow: bytesPerRow)
    }

    /// Reads every remaining row into a bitmap; all the input must have been appended.
    ///
    /// ```swift
    /// try incremental.append(responseBody, isLast: true)
    /// let image = try incremental.decodeRemainingImage()
    /// ```
    public func decodeRemainingImage() throws -> Bitmap {
        guard hasHeader else { throw ended ? ImageError.truncated : ImageError.invalidArgument("no header yet") }
        guard rowsRead == 0 else { throw ImageError.invalidArgument("rows were already read") }
        return try Bitmap(width: width, height: height) { pixels in
            var y = 0
            while y < height {
                let got = try readRows(height - y, into: pixels.baseAddress! + y * width * 4, bytesPerRow: width * 4)
                if got == 0 { throw ImageError.truncated }
                y += got
            }
        }
    }

    // MARK: The decoder context

    private func open() throws {
        let sniffed = ImageFormat.sniff(head)
        guard let sniffed, sniffed == .png || sniffed == .jpeg else {
            if head.count < 8 { throw ImageError.truncated }
            throw ImageError.unsupportedVariant(sniffed ?? .png, "not decoded incrementally (PNG and JPEG are)")
        }
        format = sniffed
        var options = DecoderContext.Options(maxPixels: maxPixels, scaleDenominator: scaleDenominator)
        options.previews = keepsPreviews
        context = try DecoderContext(.pushed, options: options)
    }

    private func feed(_ data: Data) throws {
        guard let context else { return }
        defer { state = context.progress }
        let isLast = ended
        try data.withUnsafeBytes { try context.push($0, isLast: isLast) }
    }
}
