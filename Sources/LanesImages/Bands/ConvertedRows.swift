/// The rows of another source in another ``PixelLayout``, converted one row at a time as
/// ``Bitmap/converted(to:background:)`` converts a whole bitmap (the same arithmetic, so the same bytes).
/// Its use: a grey file decodes to RGBA8 rows for the stages (grey copied to red, green and blue), and this stage
/// folds the processed rows back to grey for the encoder, exactly, as the whole-bitmap path folds its result.
/// It holds one upstream row.
///
/// ```swift
/// let decoder = try ImageRowDecoder(data: greyPNG)                       // RGBA8 rows, red = green = blue
/// let grey = ConvertedRows(try BlurRows(decoder, sigma: 8), to: .grey8)   // grey again
/// let png = try ImageEncoder().encodePNG(rowsOf: grey)                    // a grey PNG
/// ```
public final class ConvertedRows: RowStage {
    public let upstream: any RowSource
    public let layout: PixelLayout
    /// What a layout without alpha flattens transparent pixels on.
    public let background: RGBA
    public var width: Int { upstream.width }
    public var height: Int { upstream.height }
    public var rowsRead: Int { upstream.rowsRead }
    /// One upstream row (nothing when the layouts are the same and rows pass straight through).
    public var retainedBytes: Int { layout == upstream.layout ? 0 : upstream.bytesPerRow }

    private var row: UnsafeMutableRawPointer?

    /// `upstream`'s rows in `layout`; a layout without alpha flattens on `background`.
    public init(_ upstream: any RowSource, to layout: PixelLayout, background: RGBA = .white) {
        self.upstream = upstream
        self.layout = layout
        self.background = background
    }

    deinit {
        row?.deallocate()
    }

    public func readRows(_ count: Int, into destination: UnsafeMutableRawPointer, bytesPerRow: Int) throws {
        try checkRead(count, bytesPerRow: bytesPerRow)
        let from = upstream.layout
        if layout == from {
            try upstream.readRows(count, into: destination, bytesPerRow: bytesPerRow)
            return
        }
        let inputBytes = upstream.bytesPerRow
        let input = row ?? UnsafeMutableRawPointer.allocate(byteCount: inputBytes, alignment: 16)
        row = input
        for i in 0..<count {
            try upstream.readRows(1, into: input, bytesPerRow: inputBytes)
            PixelConversion.convert(UnsafeRawPointer(input), from, to: destination + i * bytesPerRow, layout,
                                    pixels: width, background: background)
        }
    }
}

extension ConvertedRows: OpacityReporting {
    /// Opaque rows stay opaque (and a layout without alpha always is).
    public var isOpaque: Bool { !layout.hasAlpha || BlurRows.isOpaque(upstream) }
}
