/// Rows of an image, handed out top to bottom a few at a time: a decoder (``ImageRowDecoder``),
/// a bitmap (``BitmapRows``) or a stage that transforms another source's rows (``BlurRows``,
/// which also tilt-shifts, and ``ResizeRows``). A stage pulls from its upstream only as far as the rows
/// asked of it need, and keeps a ring of rows for its vertical pass: nothing holds the whole image
/// unless it says so (``retainedBytes``).
///
/// One thread at a time may use a source.
///
/// ```swift
/// let decoder = try ImageRowDecoder(data: png)
/// let blurred = try BlurRows(decoder, sigma: 8)
/// let bitmap = try Bitmap(readingAllRowsOf: blurred)
/// ```
public protocol RowSource: AnyObject {
    /// Width of the rows in pixels.
    var width: Int { get }
    /// Number of rows in all.
    var height: Int { get }
    /// The layout of every row (channels and bytes per sample; the stages read and write ``PixelLayout/rgba8``).
    var layout: PixelLayout { get }
    /// Rows handed out so far (the next call starts at this row).
    var rowsRead: Int { get }
    /// Bytes this source itself holds for rows (rings, windows, whole images), not counting its upstream.
    var retainedBytes: Int { get }
    /// Writes the next `count` rows (`1...height - rowsRead`) to `destination`, `bytesPerRow` apart
    /// (at least ``bytesPerRow``). Throws ``ImageError/cancelled`` when cancelled, and
    /// the decoder's errors for bad input.
    func readRows(_ count: Int, into destination: UnsafeMutableRawPointer, bytesPerRow: Int) throws
}

extension RowSource {
    /// Bytes of one row in this source's layout.
    public var bytesPerRow: Int { width * layout.bytesPerPixel }

    /// Bytes held by this source and every source upstream of it.
    public var retainedBytesInChain: Int {
        var total = retainedBytes
        var current: (any RowSource)? = (self as? any RowStage)?.upstream
        while let source = current {
            total += source.retainedBytes
            current = (source as? any RowStage)?.upstream
        }
        return total
    }

    /// Checks a `readRows` request; throws ``ImageError/invalidArgument(_:)`` when it does not fit.
    func checkRead(_ count: Int, bytesPerRow: Int) throws {
        guard count >= 1, count <= height - rowsRead, bytesPerRow >= self.bytesPerRow else {
            throw ImageError.invalidArgument("cannot read \(count) row(s) at row \(rowsRead) of \(height)"
                + " with \(bytesPerRow) bytes per row")
        }
    }
}

/// A ``RowSource`` that transforms the rows of another.
public protocol RowStage: RowSource {
    /// The source this stage reads from.
    var upstream: any RowSource { get }
}

/// The rows of a ``Bitmap`` as a ``RowSource``.
///
/// ```swift
/// let rows = BitmapRows(photo)
/// let again = try Bitmap(readingAllRowsOf: rows)   // == photo
/// ```
public final class BitmapRows: RowSource {
    /// The bitmap read.
    public let bitmap: Bitmap
    public var width: Int { bitmap.width }
    public var height: Int { bitmap.height }
    public var layout: PixelLayout { bitmap.layout }
    public private(set) var rowsRead = 0
    /// The bitmap is shared, not copied: 0.
    public var retainedBytes: Int { 0 }

    /// Rows of `bitmap`, top to bottom.
    public init(_ bitmap: Bitmap) {
        self.bitmap = bitmap
    }

    public func readRows(_ count: Int, into destination: UnsafeMutableRawPointer, bytesPerRow: Int) throws {
        try checkRead(count, bytesPerRow: bytesPerRow)
        let rowBytes = bitmap.bytesPerRow
        bitmap.withUnsafePixels { pixels in
            for i in 0..<count {
                (destination + i * bytesPerRow).copyMemory(from: pixels.baseAddress! + (rowsRead + i) * rowBytes,
                                                           byteCount: rowBytes)
            }
        }
        rowsRead += count
    }
}

extension Bitmap {
    /// Reads every row of `source` (which must be at row 0) into a new bitmap of its layout.
    ///
    /// ```swift
    /// let small = try Bitmap(readingAllRowsOf: ResizeRows(ImageRowDecoder(data: png), width: 256, height: 171))
    /// ```
    public init(readingAllRowsOf source: any RowSource, isCancelled: () -> Bool = { false }) throws {
        guard source.rowsRead == 0 else {
            throw ImageError.invalidArgument("the source has already handed out \(source.rowsRead) row(s)")
        }
        let width = source.width, height = source.height, rowBytes = source.bytesPerRow
        self = try Bitmap(width: width, height: height, layout: source.layout) { pixels in
            var y = 0
            while y < height {
                if isCancelled() { throw ImageError.cancelled }
                let count = min(RowStages.chunkRows, height - y)
                try source.readRows(count, into: pixels.baseAddress! + y * rowBytes, bytesPerRow: rowBytes)
                y += count
            }
        }
    }
}

/// Constants shared by the row stages.
enum RowStages {
    /// Rows moved per call when a whole image is drained.
    static let chunkRows = 64

    /// Throws unless `source` delivers RGBA8 (what the stages' kernels read today).
    static func requireRGBA8(_ source: any RowSource, stage: String) throws {
        guard source.layout == .rgba8 else {
            throw ImageError.invalidArgument("\(stage) reads RGBA8 rows, not \(source.layout)")
        }
    }
}
