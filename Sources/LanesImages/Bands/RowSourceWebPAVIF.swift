import Foundation

extension ImageEncoder {
    /// Pulls every row of `source` as ``encodePNG(rowsOf:compressionLevel:filter:fileDescriptor:bandRows:)`` does (the
    /// same two threads and two bands) into a ``WebPStream``, which gathers them and encodes the picture at the end:
    /// the stages hold their rows, the stream its RGBA8 canvas. Rows of another layout are converted to RGBA8 on
    /// the way (``ConvertedRows``); an opaque source (``OpacityReporting``) is written without alpha.
    ///
    /// ```swift
    /// let webp = try ImageEncoder().encodeWebP(rowsOf: ResizeRows(ImageRowDecoder(data: jpeg), width: 800, height: 600),
    ///                                          quality: 80)
    /// ```
    public func encodeWebP(rowsOf source: any RowSource, quality: Int = 75, lossless: Bool = false, effort: Int = 4,
                           fileDescriptor: Int32? = nil, bandRows: Int = 64) throws -> (data: Data, byteCount: Int) {
        let rows = try Self.rgba8Rows(of: source)
        let stream = try WebPStream(width: source.width, height: source.height, hasAlpha: Self.hasAlpha(source),
                                    quality: quality, lossless: lossless, effort: effort, fileDescriptor: fileDescriptor)
        return try Self.encodeBands(of: rows, into: stream, bandRows: bandRows, threadName: "lanes webp band encoder")
    }

    /// ``encodeWebP(rowsOf:quality:lossless:effort:fileDescriptor:bandRows:)`` for an AVIF (``AVIFStream``).
    ///
    /// ```swift
    /// let avif = try ImageEncoder().encodeAVIF(rowsOf: ImageRowDecoder(data: png), quality: 60, effort: 2)
    /// ```
    public func encodeAVIF(rowsOf source: any RowSource, quality: Int = 50, effort: Int = 4, threads: Int = 1,
                           fileDescriptor: Int32? = nil, bandRows: Int = 64) throws -> (data: Data, byteCount: Int) {
        let rows = try Self.rgba8Rows(of: source)
        let stream = try AVIFStream(width: source.width, height: source.height, hasAlpha: Self.hasAlpha(source),
                                    quality: quality, effort: effort, threads: threads, fileDescriptor: fileDescriptor)
        return try Self.encodeBands(of: rows, into: stream, bandRows: bandRows, threadName: "lanes avif band encoder")
    }

    private static func rgba8Rows(of source: any RowSource) throws -> any RowSource {
        guard source.rowsRead == 0 else {
            throw ImageError.invalidArgument("the source has already handed out \(source.rowsRead) row(s)")
        }
        return source.layout == .rgba8 ? source : ConvertedRows(source, to: .rgba8)
    }

    private static func hasAlpha(_ source: any RowSource) -> Bool {
        source.layout.hasAlpha && !BlurRows.isOpaque(source)
    }
}
