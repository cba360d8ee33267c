import Foundation

/// A fetch stage's result: the body, the image a ``PreviewFeed`` decoded from it as it arrived (nil: none, the
/// decode stage decodes the body), and for a thumbnail fetch what it found (the body is then the cached thumbnail
/// or the original to make one from).
struct FetchedBody: Sendable {
    let data: Data
    var arrived: ArrivedImage?
    var thumbnail: ThumbnailSource?
}

/// The image a download's incremental decoder ended with: the whole file, in stored orientation, at
/// 1/`scaleDenominator` of its size (a JPEG's DCT scale). A decode stage makes its image from it instead of decoding
/// the body again, wherever that gives the very pixels the decoder would.
struct ArrivedImage: Sendable {
    let bitmap: Bitmap
    let info: ImageInfo
    let scaleDenominator: Int

    /// Whether ``image(for:)`` serves `decoder`'s decode for `targetSize`: the default RGBA8 ``ImageDecoder``
    /// decodes it at this DCT scale.
    func serves(_ targetSize: TargetSize?, decoder: any ImageDecoding) -> Bool {
        guard let plain = decoder as? ImageDecoder, !plain.keepsStoredLayout else { return false }
        let target = ImageDecoder.storedTarget(info, targetSize: targetSize)
        return ImageDecoder.decodeDenominator(info, target: target) == scaleDenominator
    }

    /// The bytes ``image(for:)`` allocates: its result.
    func cost(for targetSize: TargetSize?) -> Int {
        let target = ImageDecoder.storedTarget(info, targetSize: targetSize)
        return target.width * target.height * 4
    }

    /// What ``ImageDecoder`` decodes for `targetSize` (when ``serves(_:decoder:)``): resized band by band from the
    /// arrived rows as a decode resizes the decoder's, then turned upright.
    func image(for targetSize: TargetSize?) throws -> Bitmap {
        let target = ImageDecoder.storedTarget(info, targetSize: targetSize)
        var image = bitmap
        if image.width != target.width || image.height != target.height {
            image = try Bitmap(readingAllRowsOf: ResizeRows(BitmapRows(bitmap), width: target.width,
                                                            height: target.height))
        }
        return info.orientation.apply(to: image)
    }
}
