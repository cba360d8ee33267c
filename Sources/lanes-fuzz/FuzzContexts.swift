import Foundation
import LanesImages

/// The decoder context's sources and the GIF shrink-on-load path, for every fuzz input: the bytes pushed in pieces
/// (sized by the input's second byte) decode as the bytes in memory do, and a GIF's first frame asked for a size picked
/// by the input's last bytes shrinks by a whole factor that keeps at least that size; an embedded thumbnail decodes to
/// the size its header said or fails in one error.
enum FuzzContexts {
    static func run(_ bytes: [UInt8], full: Result<Bitmap, ImageError>, format: ImageFormat?) {
        pushed(bytes, full: full, format: format)
        if format == .gif { gifShrink(bytes) }
        embeddedThumbnail(bytes)
    }

    /// The embedded thumbnail the header reports (Exif, a HEIF thumbnail item, a JPEG XL preview): when it decodes it
    /// has the size the header said, upright, and is no larger than the image.
    private static func embeddedThumbnail(_ bytes: [UInt8]) {
        _ = FuzzTarget.outcome {
            try bytes.withUnsafeBytes { buffer in
                let context = try DecoderContext(.memory(buffer), options: .init(maxPixels: FuzzTarget.maxPixels))
                let info = try context.header()
                guard let said = info.embeddedThumbnail, let thumbnail = try context.decodeEmbeddedThumbnail() else {
                    return Bitmap(width: 1, height: 1, pixels: [0, 0, 0, 255])
                }
                FuzzTarget.check(thumbnail.width == said.width && thumbnail.height == said.height,
                                 "a thumbnail of \(thumbnail.width)x\(thumbnail.height), not the \(said) reported")
                FuzzTarget.check(thumbnail.width * thumbnail.height <= info.width * info.height,
                                 "a thumbnail larger than its \(info.width)x\(info.height) image")
                return thumbnail
            }
        }
    }

    /// Pushed in pieces with every byte kept, then decoded whole: the same outcome as from memory (a HEIF's pixels may
    /// differ between two decodes of damaged data, see FuzzTarget.animation: sizes only).
    private static func pushed(_ bytes: [UInt8], full: Result<Bitmap, ImageError>, format: ImageFormat?) {
        let piece = 1 + Int(bytes.count > 1 ? bytes[1] : 0) * 53
        var options = DecoderContext.Options(maxPixels: FuzzTarget.maxPixels)
        options.keepsInput = true
        options.maxBytes = 256 << 20
        let fromMemory = FuzzTarget.outcome {
            try bytes.withUnsafeBytes { buffer in
                try DecoderContext(.memory(buffer), options: options).decodeWhole()
            }
        }
        let fromPushes = FuzzTarget.outcome {
            let context = try DecoderContext(.pushed, options: options)
            var offset = 0
            repeat {
                let end = min(bytes.count, offset + piece)
                try bytes[offset..<end].withUnsafeBytes { try context.push($0, isLast: end == bytes.count) }
                offset = end
            } while offset < bytes.count
            return try context.decodeWhole()
        }
        switch (fromMemory, fromPushes) {
        case (.success(let a), .success(let b)):
            if format == .heif {
                FuzzTarget.check(a.width == b.width && a.height == b.height, "a pushed HEIF of another size")
            } else {
                FuzzTarget.check(a == b, "pushed bytes decode to other pixels than the same bytes in memory")
            }
        case (.success, .failure(let error)) where format?.decodesFrames == true:
            // Pushed frame formats are only kept, then decoded as from memory: the same bytes, the same answer.
            FuzzTarget.fail("decoded from memory, but pushed in pieces of \(piece) bytes it failed: \(error)")
        default:
            break // a PNG or JPEG pushed also runs the incremental decoder, which may stop at damage a whole decode
                  // reads past (FuzzTarget.incremental checks it)
        }
        if case .success(let whole) = fromMemory, case .success(let plain) = full, format?.decodesFrames == true {
            FuzzTarget.check(whole.width == plain.width && whole.height == plain.height,
                             "the context's first frame and ImageDecoder's differ in size")
        }
    }

    /// A GIF's first frame for a box picked by the input's last two bytes: when it decodes, its size lies between the
    /// box (or the canvas, when the box is larger) and the canvas, as a whole shrink factor makes it.
    private static func gifShrink(_ bytes: [UInt8]) {
        guard bytes.count > 2 else { return }
        let box = (width: 1 + Int(bytes[bytes.count - 1]) % 97, height: 1 + Int(bytes[bytes.count - 2]) % 97)
        var options = DecoderContext.Options(maxPixels: FuzzTarget.maxPixels)
        options.firstFrameOnly = true
        options.scaledSize = box
        _ = FuzzTarget.outcome {
            try bytes.withUnsafeBytes { buffer in
                let context = try DecoderContext(.memory(buffer), options: options)
                let info = try context.header()
                let frame = try context.decodeWhole()
                FuzzTarget.check(frame.width <= info.width && frame.height <= info.height,
                                 "a shrunk GIF frame of \(frame.width)x\(frame.height) from \(info.width)x\(info.height)")
                FuzzTarget.check(frame.width >= min(box.width, info.width) && frame.height >= min(box.height, info.height),
                                 "a GIF frame of \(frame.width)x\(frame.height) shrunk below the \(box) asked for")
                return frame
            }
        }
    }
}
