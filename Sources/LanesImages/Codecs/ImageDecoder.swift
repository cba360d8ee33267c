import Foundation

/// Something that turns encoded image bytes into a ``Bitmap``. ``ImageDecoder`` is the real
/// one; tests of code that decodes can substitute their own.
///
/// ```swift
/// func thumbnail(_ data: Data, using decoder: some ImageDecoding) throws -> Bitmap {
///     try decoder.decode(data, targetSize: TargetSize(maxWidth: 128, maxHeight: 128),
///                        maxPixels: ImageDecoder.defaultMaxPixels)
/// }
/// ```
public protocol ImageDecoding: Sendable {
    /// Decodes `data`, scaled down to fit `targetSize` when given, refusing images of more
    /// than `maxPixels` pixels before allocating anything for them.
    func decode(_ data: Data, targetSize: TargetSize?, maxPixels: Int) throws -> Bitmap
}

/// Decodes PNG, JPEG, WebP, GIF, AVIF, HEIF/HEIC and JPEG XL data to ``Bitmap``s, upright (the Exif orientation
/// applied; a HEIF's `irot`/`imir` and a JPEG XL's orientation by their libraries): RGBA8 by
/// default, or in the file's own layout (grey stays grey, a 16-bit PNG stays 16-bit) with `keepsStoredLayout`.
/// An animated GIF, WebP or AVIF decodes to its first frame here; ``decodeAnimation(_:maxPixels:maxBytes:maxFrames:)``
/// gives every frame with its delay.
///
/// The format is sniffed from the bytes, never taken from a file name. The header is probed
/// first: an image claiming more than `maxPixels` pixels fails with ``ImageError/tooLarge(width:height:limit:)``
/// before any pixel memory is allocated. With a `targetSize`, a JPEG is decoded at the
/// smallest DCT scale (1/2, 1/4, 1/8) that still covers the target and then area-averaged
/// to it; a still WebP is scaled by libwebp while it decodes (shrink-on-load); a PNG, a GIF, an AVIF and an
/// animated WebP's first frame are decoded fully and area-averaged. A HEIF or a JPEG XL is decoded whole too: libheif
/// 1.15 has no call that decodes a grid's tiles one at a time, and libjxl hands out whole frames here; their limits
/// count the whole decoded image and the library's own buffers (``workingSetBytes(for:targetSize:)``) and are checked
/// from the header before anything is decoded.
///
/// ```swift
/// let decoder = ImageDecoder()
/// let photo = try decoder.decode(data)
/// let thumb = try decoder.decode(data, targetSize: TargetSize(maxWidth: 256, maxHeight: 256))
/// let scan = try ImageDecoder(keepsStoredLayout: true).decode(data)   // a grey PNG: .grey8
/// ```
///
/// A 16-bit PNG decoded with a `targetSize` it must shrink to comes out at 8 bits: the resampler works on 8-bit RGBA.
public struct ImageDecoder: ImageDecoding {
    /// The default pixel limit: 100 megapixels (400 MB of RGBA).
    public static let defaultMaxPixels = 100_000_000

    /// Whether bitmaps keep the file's ``ImageInfo/storedLayout`` (grey, 16-bit) instead of becoming RGBA8.
    public let keepsStoredLayout: Bool

    /// Creates a decoder. It holds no settings but `keepsStoredLayout`; one can be shared freely.
    ///
    /// ```swift
    /// let faithful = ImageDecoder(keepsStoredLayout: true)   // grey stays grey, 16 bits stay 16 bits
    /// ```
    public init(keepsStoredLayout: Bool = false) {
        self.keepsStoredLayout = keepsStoredLayout
    }

    /// Reads the header only: format, stored size, orientation.
    ///
    /// ```swift
    /// let info = try ImageDecoder().probe(data)   // no pixels decoded
    /// ```
    public func probe(_ data: Data) throws -> ImageInfo {
        try data.withUnsafeBytes { try CodecBridge.probe($0) }
    }

    /// Reads the header only: format, stored size, orientation.
    public func probe(_ bytes: [UInt8]) throws -> ImageInfo {
        try bytes.withUnsafeBytes { try CodecBridge.probe($0) }
    }

    /// Decodes PNG or JPEG `data` (see the type's documentation).
    ///
    /// ```swift
    /// let bitmap = try ImageDecoder().decode(data, targetSize: TargetSize(maxWidth: 800))
    /// ```
    public func decode(_ data: Data, targetSize: TargetSize? = nil,
                       maxPixels: Int = ImageDecoder.defaultMaxPixels) throws -> Bitmap {
        try data.withUnsafeBytes {
            try Self.decode($0, targetSize: targetSize, maxPixels: maxPixels, keepsStoredLayout: keepsStoredLayout)
        }
    }

    /// Decodes PNG or JPEG bytes (see the type's documentation).
    ///
    /// ```swift
    /// let bitmap = try ImageDecoder().decode(Array(data), maxPixels: 20_000_000)
    /// ```
    public func decode(_ bytes: [UInt8], targetSize: TargetSize? = nil,
                       maxPixels: Int = ImageDecoder.defaultMaxPixels) throws -> Bitmap {
        try bytes.withUnsafeBytes {
            try Self.decode($0, targetSize: targetSize, maxPixels: maxPixels, keepsStoredLayout: keepsStoredLayout)
        }
    }

    /// The thumbnail the file carries — a JPEG's Exif thumbnail, a HEIF/HEIC thumbnail item, a JPEG XL preview frame
    /// (its size is ``ImageInfo/embeddedThumbnail``) — decoded to RGBA8, upright; `nil` when the file has none. Far
    /// cheaper than the image: a phone's 12 MP HEIC carries a 320 or 512 pixel thumbnail. One that lies about its size
    /// or is cut short throws, as a damaged image does.
    ///
    /// ```swift
    /// let preview = try ImageDecoder().decodeEmbeddedThumbnail(data) ?? ImageDecoder().decode(data)
    /// ```
    public func decodeEmbeddedThumbnail(_ data: Data, maxPixels: Int = ImageDecoder.defaultMaxPixels) throws -> Bitmap? {
        try data.withUnsafeBytes {
            try DecoderContext(.memory($0), options: .init(maxPixels: maxPixels)).decodeEmbeddedThumbnail()
        }
    }

    /// The DCT scale denominator (1, 2, 4 or 8) a JPEG of `width` x `height` is decoded at
    /// for a stored-orientation target of `targetWidth` x `targetHeight`: the largest
    /// reduction whose result still covers the target on both axes.
    ///
    /// ```swift
    /// ImageDecoder.jpegScaleDenominator(width: 4000, height: 3000, targetWidth: 600, targetHeight: 450)   // 4
    /// ```
    public static func jpegScaleDenominator(width: Int, height: Int,
                                            targetWidth: Int, targetHeight: Int) -> Int {
        for denominator in [8, 4, 2] {
            let scaled = CodecBridge.jpegScaledSize(width: width, height: height, denominator: denominator)
            if scaled.width >= targetWidth && scaled.height >= targetHeight {
                return denominator
            }
        }
        return 1
    }

    /// The DCT scale a JPEG is decoded at for a stored-orientation `target` (1 for a PNG).
    static func decodeDenominator(_ info: ImageInfo, target: (width: Int, height: Int)) -> Int {
        info.format == .jpeg
            ? jpegScaleDenominator(width: info.width, height: info.height, targetWidth: target.width,
                                   targetHeight: target.height)
            : 1
    }

    /// The stored-orientation size a decode for `targetSize` produces.
    static func storedTarget(_ info: ImageInfo, targetSize: TargetSize?) -> (width: Int, height: Int) {
        guard let targetSize else { return (info.width, info.height) }
        let fitted = targetSize.fittedSize(width: info.displayWidth, height: info.displayHeight)
        return info.orientation.swapsDimensions ? (fitted.height, fitted.width) : fitted
    }

    /// The bytes a decode of an image with header `info` for `targetSize` holds at its peak, besides the encoded
    /// input: the result and, for a resized decode, the decoder's rows and the resize's ring (no whole decoded image);
    /// an interlaced PNG is decoded whole first. What the pipeline reserves from its ``MemoryBudget``.
    ///
    /// ```swift
    /// let info = try ImageDecoder().probe(data)
    /// let bytes = ImageDecoder.workingSetBytes(for: info, targetSize: TargetSize(maxWidth: 256))
    /// ```
    public static func workingSetBytes(for info: ImageInfo, targetSize: TargetSize?) -> Int {
        let target = storedTarget(info, targetSize: targetSize)
        if info.format.decodesFrames {
            // The result; unless a still WebP shrinks while it decodes, the whole first frame and the decoder's
            // canvases (held ×3 for an animated WebP, ×2 for a GIF, YUV planes ×2 for an AVIF; libheif's planes and
            // RGBA copy: 12 bytes a pixel; libjxl's float frame: 16, and the previous frame of an animation: 32).
            let result = target.width * target.height * 4
            if info.format == .webp && !info.isAnimated { return result + info.width * 16 * 4 }
            if let thumbnail = embeddedThumbnailCovering(info, target: target) {
                // Only the thumbnail is decoded (with the same per-pixel buffers), then resized.
                let held = info.format == .heif ? 12 : 16
                return result + thumbnail.width * thumbnail.height * (4 + held)
            }
            let held = switch info.format {
            case .heif: 12
            case .jxl: info.isAnimated ? 32 : 16
            default: 8
            }
            return result + info.width * info.height * (4 + held)
        }
        let denominator = decodeDenominator(info, target: target)
        let scaled = CodecBridge.jpegScaledSize(width: info.width, height: info.height, denominator: denominator)
        let result = target.width * target.height * 4
        guard scaled.width != target.width || scaled.height != target.height else {
            // Unscaled, a decoder keeping the stored layout may hold 16-bit RGBA: 8 bytes a pixel.
            return target.width * target.height * max(4, info.storedLayout.bytesPerPixel)
        }
        // The row decoder: a row (PNG) or an iMCU strip of 16 rows (JPEG); a progressive JPEG's coefficients,
        // an interlaced PNG's whole image.
        var decoder = scaled.width * 4 * (info.format == .png ? 2 : 16)
        if info.isProgressive {
            decoder += info.format == .png ? scaled.width * scaled.height * 4 : info.width * info.height * 3 * 2
        }
        let taps = Resampler.Axis(source: scaled.height, destination: target.height).count.max() ?? 1
        let ring = taps * target.width * 16 + scaled.width * 20
        return result + decoder + ring
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, targetSize: TargetSize?,
                       maxPixels: Int, keepsStoredLayout: Bool = false) throws -> Bitmap {
        guard maxPixels > 0 else {
            throw ImageError.invalidArgument("maxPixels must be positive, got \(maxPixels)")
        }
        let info = try CodecBridge.probe(bytes, maxPixels: maxPixels)
        guard let pixelCount = info.pixelCount, pixelCount <= Int.max / 8 else {
            throw ImageError.tooLarge(width: info.width, height: info.height, limit: maxPixels)
        }
        // The target is given for the upright image; turn it into the stored orientation.
        let target = storedTarget(info, targetSize: targetSize)
        let denominator = decodeDenominator(info, target: target)
        let scaled = CodecBridge.jpegScaledSize(width: info.width, height: info.height, denominator: denominator)
        if info.format.decodesFrames {
            return try decodeFirstFrame(bytes, info: info, target: target, maxPixels: maxPixels)
        }
        let layout = keepsStoredLayout ? info.storedLayout : .rgba8
        var bitmap: Bitmap
        if scaled.width != target.width || scaled.height != target.height, layout == .rgba8 {
            // Decoded rows go straight into the banded resize: the decoded image is never whole.
            let rows = try ImageRowDecoder(bytes: bytes, owned: nil, fileDescriptor: -1,
                                           scaleDenominator: denominator, maxPixels: maxPixels)
            bitmap = try Bitmap(readingAllRowsOf: ResizeRows(rows, width: target.width, height: target.height))
        } else {
            // Other layouts (grey, 16-bit) are decoded whole and resized through RGBA8 (see processedAsRGBA8).
            let context = try DecoderContext(.memory(bytes),
                                             options: .init(maxPixels: maxPixels, scaleDenominator: denominator))
            bitmap = try context.decodeWhole(layout: info.format == .png ? layout : layout.eightBit)
            if bitmap.width != target.width || bitmap.height != target.height {
                bitmap = try bitmap.processedAsRGBA8 {
                    try Resampler.resize($0, width: target.width, height: target.height, isCancelled: { false })
                }
            }
        }
        // Orientation works on the whole (already resized) bitmap: a transpose needs every row.
        return info.orientation.apply(to: bitmap)
    }
}

extension ImageDecoder {
    /// The first frame of a WebP, GIF or AVIF at the stored-orientation `target` (these formats carry no Exif
    /// orientation here): a still WebP scaled by libwebp as it decodes, the others decoded whole and area-averaged.
    static func decodeFirstFrame(_ bytes: UnsafeRawBufferPointer, info: ImageInfo, target: (width: Int, height: Int),
                                 maxPixels: Int) throws -> Bitmap {
        // A still WebP decodes straight to the target (libwebp's scaling); an opaque GIF's first frame is box-shrunk
        // by a whole factor while it decodes (gif.c), then resized the rest of the way.
        let shrinksOnLoad = (info.format == .webp && !info.isAnimated || info.format == .gif)
            && (target.width, target.height) != (info.width, info.height)
        var options = DecoderContext.Options(maxPixels: maxPixels)
        options.firstFrameOnly = true
        options.scaledSize = shrinksOnLoad ? target : nil
        // As libvips' heifload does for a thumbnail: a HEIF thumbnail item or a JPEG XL preview frame at least the
        // target's size is decoded instead of the image (a phone's 512-pixel thumbnail instead of its 12 MP). One
        // that fails to decode (it lies, or is damaged) leaves the image, decoded by a fresh context.
        var embedded: Bitmap?
        if embeddedThumbnailCovering(info, target: target) != nil {
            embedded = try? DecoderContext(.memory(bytes), options: options).decodeEmbeddedThumbnail()
        }
        let first = try embedded ?? DecoderContext(.memory(bytes), options: options).decodeWhole()
        guard first.width != target.width || first.height != target.height else { return first }
        return try Resampler.resize(first, width: target.width, height: target.height, isCancelled: { false })
    }
}

extension ImageDecoder {
    /// The embedded thumbnail of a HEIF or JPEG XL (both upright, as `target` is for these formats) when it covers
    /// `target` on both axes and is smaller than the image: decoding it instead loses nothing at that size. (A JPEG's
    /// Exif thumbnail is left alone: it is usually 160 pixels wide and may predate an edit, and a JPEG shrinks in the
    /// DCT domain anyway.)
    static func embeddedThumbnailCovering(_ info: ImageInfo, target: (width: Int, height: Int))
        -> ImageInfo.EmbeddedThumbnail? {
        guard info.format == .heif || info.format == .jxl, let thumbnail = info.embeddedThumbnail,
              thumbnail.width >= target.width, thumbnail.height >= target.height,
              thumbnail.width < info.width || thumbnail.height < info.height else { return nil }
        return thumbnail
    }
}

extension ImageDecoding {
    /// Decodes `data` with the default pixel limit, scaled to `targetSize` when given.
    ///
    /// ```swift
    /// let decoder: any ImageDecoding = ImageDecoder()
    /// let bitmap = try decoder.decode(data)
    /// ```
    public func decode(_ data: Data, targetSize: TargetSize? = nil) throws -> Bitmap {
        try decode(data, targetSize: targetSize, maxPixels: ImageDecoder.defaultMaxPixels)
    }
}
