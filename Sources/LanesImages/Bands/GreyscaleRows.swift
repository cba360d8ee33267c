/// ``Greyscale`` as a row stage: each RGBA row (8- or 16-bit) becomes luma in red, green and blue, alpha kept, with
/// the whole processor's arithmetic (the same bytes); grey rows pass straight through. It holds nothing: rows are
/// converted in place in the caller's buffer.
///
/// ```swift
/// let decoder = try ImageRowDecoder(data: png, layout: .rgba16)
/// let grey = ConvertedRows(GreyscaleRows(decoder), to: .grey16)   // a 16-bit grey image, a few rows at a time
/// let bitmap = try Bitmap(readingAllRowsOf: grey)
/// ```
public final class GreyscaleRows: RowStage {
    public let upstream: any RowSource
    /// The luma weights.
    public let greyscale: Greyscale
    public var width: Int { upstream.width }
    public var height: Int { upstream.height }
    public var layout: PixelLayout { upstream.layout }
    public var rowsRead: Int { upstream.rowsRead }
    public var retainedBytes: Int { 0 }

    /// `upstream`'s rows through `greyscale`.
    public init(_ upstream: any RowSource, greyscale: Greyscale = Greyscale()) {
        self.upstream = upstream
        self.greyscale = greyscale
    }

    public func readRows(_ count: Int, into destination: UnsafeMutableRawPointer, bytesPerRow: Int) throws {
        try checkRead(count, bytesPerRow: bytesPerRow)
        try upstream.readRows(count, into: destination, bytesPerRow: bytesPerRow)
        guard !layout.isGrey else { return }
        for i in 0..<count {
            let row = destination + i * bytesPerRow
            greyscale.convert(row: UnsafeRawPointer(row), into: row, pixels: width, bytesPerSample: layout.bytesPerSample)
        }
    }
}

extension GreyscaleRows: OpacityReporting {
    /// Alpha is kept: the upstream's answer.
    public var isOpaque: Bool { BlurRows.isOpaque(upstream) }
}
