import Foundation

/// A decoder that can also make a quick rendering: a cheaper, coarser picture of the same image, shown in a list
/// while the full one is on its way (the pipeline's ``ImagePipeline/quickLoader``). ``ImageDecoder`` is one; the
/// pipeline asks any other ``ImageDecoding`` for a decode at a quarter of the target size instead.
///
/// ```swift
/// let decoder: any QuickImageDecoding = ImageDecoder()
/// let rough = try decoder.decodeQuick(data, targetSize: TargetSize(maxWidth: 160, maxHeight: 120),
///                                     maxPixels: ImageDecoder.defaultMaxPixels)
/// ```
public protocol QuickImageDecoding: ImageDecoding {
    /// A quick rendering of `data` no larger than `targetSize` (it may be smaller: the view scales it up), refusing
    /// images of more than `maxPixels` pixels as ``ImageDecoding/decode(_:targetSize:maxPixels:)`` does.
    func decodeQuick(_ data: Data, targetSize: TargetSize?, maxPixels: Int) throws -> Bitmap
}

extension ImageDecoding {
    /// The size a quick rendering aims at when the decoder has no cheaper way: a quarter of `targetSize` each way
    /// (an eighth of the image when there is none).
    static func quickTarget(_ targetSize: TargetSize?) -> TargetSize {
        guard let targetSize else { return TargetSize(maxWidth: 256, maxHeight: 256) }
        return TargetSize(maxWidth: max(1, targetSize.maxWidth / 4), maxHeight: max(1, targetSize.maxHeight / 4))
    }

    /// A quick rendering by whatever this decoder offers: its own (``QuickImageDecoding``), or a decode at a quarter
    /// of the target size.
    func quickRendering(_ data: Data, targetSize: TargetSize?, maxPixels: Int) throws -> Bitmap {
        if let quick = self as? any QuickImageDecoding {
            return try quick.decodeQuick(data, targetSize: targetSize, maxPixels: maxPixels)
        }
        return try decode(data, targetSize: Self.quickTarget(targetSize), maxPixels: maxPixels)
    }
}

extension ImageDecoder: QuickImageDecoding {
    /// A quick rendering (see ``QuickImageDecoding``), upright:
    /// - a JPEG's Exif thumbnail when it has one of the photo's shape that covers a quarter of the target on one axis
    ///   (a few kilobytes to decode);
    /// - else a JPEG decoded by libjpeg's DCT scaling at the smallest scale (down to 1/8) that still covers a quarter of
    ///   the target, then sampled (nearest pixel, no filtering) down to the target when larger;
    /// - a PNG decoded row by row, keeping only the rows and pixels the target needs (nearest, no filtering: the
    ///   inflate still reads every row, but nothing is resampled);
    /// - a WebP, GIF, AVIF, HEIF or JPEG XL decoded at a quarter of the target (a still WebP shrinks while it
    ///   decodes).
    ///
    /// ```swift
    /// let rough = try ImageDecoder().decodeQuick(jpeg, targetSize: TargetSize(maxWidth: 160, maxHeight: 120))
    /// ```
    public func decodeQuick(_ data: Data, targetSize: TargetSize?,
                            maxPixels: Int = ImageDecoder.defaultMaxPixels) throws -> Bitmap {
        try data.withUnsafeBytes { bytes in
            guard maxPixels > 0 else {
                throw ImageError.invalidArgument("maxPixels must be positive, got \(maxPixels)")
            }
            let info = try CodecBridge.probe(bytes)
            guard let pixels = info.pixelCount, pixels <= maxPixels, pixels <= Int.max / 8 else {
                throw ImageError.tooLarge(width: info.width, height: info.height, limit: maxPixels)
            }
            // A quarter of the target each way, or an eighth of the image without one.
            let quickSize = targetSize.map { _ in Self.quickTarget(targetSize) }
                ?? TargetSize(maxWidth: max(1, info.displayWidth / 8), maxHeight: max(1, info.displayHeight / 8))
            if !keepsStoredLayout, let thumbnail = Self.exifThumbnailForQuick(info, quickSize: quickSize),
               let bitmap = try? DecoderContext(.memory(bytes), options: .init(maxPixels: maxPixels))
                   .decodeEmbeddedThumbnail() {
                // Checked again after the decode: the header's size is the file's word.
                if bitmap.width == thumbnail.width, bitmap.height == thumbnail.height { return bitmap }
            }
            guard !info.format.decodesFrames, !keepsStoredLayout || info.storedLayout == .rgba8 else {
                return try Self.decode(bytes, targetSize: quickSize, maxPixels: maxPixels,
                                       keepsStoredLayout: keepsStoredLayout)
            }
            let target = Self.storedTarget(info, targetSize: targetSize)
            let least = Self.storedTarget(info, targetSize: quickSize)
            let denominator = Self.decodeDenominator(info, target: least)
            let rows = try ImageRowDecoder(bytes: bytes, owned: nil, fileDescriptor: -1,
                                           scaleDenominator: denominator, maxPixels: maxPixels)
            // The target when the decoded rows cover it (a PNG: always), else the rows' own size fitted into it.
            let size = rows.width >= target.width && rows.height >= target.height ? target
                : TargetSize(maxWidth: target.width, maxHeight: target.height).fittedSize(width: rows.width, height: rows.height)
            let bitmap = try Bitmap(sampling: rows, width: size.width, height: size.height)
            return info.orientation.apply(to: bitmap)
        }
    }
}

extension ImageDecoder {
    /// A JPEG's Exif thumbnail when it can stand in for the quick rendering: it covers `quickSize` on one axis at
    /// least (the view scales it, as it does any quick rendering) and has the photo's shape within 2% (a thumbnail of
    /// another shape was left behind by a crop). Decoding it reads a few kilobytes where even the DCT's 1/8 reads the
    /// whole file. (HEIF and JPEG XL thumbnails are already taken by the decode at a quarter of the target.)
    static func exifThumbnailForQuick(_ info: ImageInfo, quickSize: TargetSize) -> ImageInfo.EmbeddedThumbnail? {
        guard info.format == .jpeg, let thumbnail = info.embeddedThumbnail, thumbnail.width > 0,
              thumbnail.height > 0, info.displayWidth > 0, info.displayHeight > 0,
              thumbnail.width >= quickSize.maxWidth || thumbnail.height >= quickSize.maxHeight,
              thumbnail.width < info.displayWidth, thumbnail.height < info.displayHeight else { return nil }
        let photo = Double(info.displayWidth) / Double(info.displayHeight)
        let small = Double(thumbnail.width) / Double(thumbnail.height)
        return abs(small / photo - 1) <= 0.02 ? thumbnail : nil
    }
}

extension Bitmap {
    /// Reads every row of `source` (RGBA8, at row 0) and keeps the nearest pixel of each of `width` x `height`
    /// (at most the source's size): no filtering, one row of the source held at a time.
    init(sampling source: any RowSource, width: Int, height: Int) throws {
        try RowStages.requireRGBA8(source, stage: "a quick sampling")
        let sourceWidth = source.width, sourceHeight = source.height
        guard width > 0, height > 0, width <= sourceWidth, height <= sourceHeight else {
            throw ImageError.invalidArgument("cannot sample \(sourceWidth)x\(sourceHeight) to \(width)x\(height)")
        }
        let columns = (0..<width).map { ($0 * sourceWidth + sourceWidth / 2) / width }
        let line = UnsafeMutablePointer<UInt32>.allocate(capacity: sourceWidth)
        defer { line.deallocate() }
        self = try Bitmap(width: width, height: height, layout: .rgba8) { pixels in
            try pixels.withMemoryRebound(to: UInt32.self) { out in
                for y in 0..<height {
                    // The nearest source row of output row y: read the rows up to it, keep the last.
                    let wanted = (y * sourceHeight + sourceHeight / 2) / height
                    while source.rowsRead <= wanted {
                        try source.readRows(1, into: line, bytesPerRow: sourceWidth * 4)
                    }
                    for x in 0..<width { out[y * width + x] = line[columns[x]] }
                }
            }
        }
    }
}
