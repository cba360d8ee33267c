import CLanesCodecs

/// Calls into the C codec shims and turns their status codes into ``ImageError``s.
enum CodecBridge {
    /// A zeroed buffer for the C side's error message.
    static func messageBuffer() -> [CChar] {
        [CChar](repeating: 0, count: Int(CLANES_MESSAGE_CAPACITY))
    }

    static func text(of message: [CChar]) -> String {
        let bytes = message.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The error for a decoding status, or nil for `CLANES_OK`.
    static func decodeError(_ status: Int32, _ message: [CChar], format: ImageFormat) -> ImageError? {
        let reason = text(of: message)
        switch status {
        case CLANES_OK: return nil
        case CLANES_ERR_TRUNCATED: return .truncated
        case CLANES_ERR_CORRUPT: return .corrupt(reason)
        case CLANES_ERR_NO_MEMORY: return .outOfMemory
        case CLANES_ERR_ARGUMENT: return .invalidArgument(reason)
        case CLANES_ERR_UNSUPPORTED, CLANES_ERR_TOO_LARGE: return .unsupportedVariant(format, reason)
        default: return .corrupt("codec status \(status): \(reason)")
        }
    }

    /// The error for an encoding status, or nil for `CLANES_OK`.
    static func encodeError(_ status: Int32, _ message: [CChar]) -> ImageError? {
        switch status {
        case CLANES_OK: return nil
        case CLANES_ERR_NO_MEMORY: return .outOfMemory
        case CLANES_ERR_ARGUMENT: return .invalidArgument(text(of: message))
        default: return .encodeFailed(text(of: message))
        }
    }

    /// Probes a PNG, JPEG, WebP, GIF, AVIF, HEIF or JPEG XL header; other content is rejected by what it looks like.
    static func probe(_ bytes: UnsafeRawBufferPointer) throws -> ImageInfo {
        let content = SniffedContent(sniffing: bytes)
        guard case .image(let format) = content, format.isDecodable else {
            throw ImageError.unsupportedFormat(content)
        }
        var info = clanes_info()
        var message = messageBuffer()
        let status = clanes_probe(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count,
                                  &info, &message, message.count)
        if let error = decodeError(status, message, format: format) {
            throw error
        }
        return ImageInfo(format: format,
                         width: Int(info.width), height: Int(info.height),
                         orientation: ExifOrientation(rawValue: Int(info.orientation)) ?? .up,
                         components: Int(info.components), bitDepth: Int(info.bit_depth),
                         isProgressive: info.progressive != 0,
                         storedLayout: PixelLayout(channels: Int(info.layout_channels),
                                                   bytesPerSample: Int(info.layout_bytes)) ?? .rgba8,
                         isAnimated: info.animated != 0,
                         embeddedThumbnail: info.thumbnail_width > 0 && info.thumbnail_height > 0
                             ? .init(width: Int(info.thumbnail_width), height: Int(info.thumbnail_height)) : nil)
    }

    /// Decodes into a new bitmap of `width` x `height` (the header size, or the JPEG's scaled size) in `layout`
    /// (a JPEG: RGBA8, or grey8 for a greyscale one).
    static func decode(_ bytes: UnsafeRawBufferPointer, format: ImageFormat, scaleDenominator: Int,
                       width: Int, height: Int, layout: PixelLayout = .rgba8) throws -> Bitmap {
        var message = messageBuffer()
        let data = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let rowBytes = width * layout.bytesPerPixel
        return try Bitmap(width: width, height: height, layout: layout) { pixels in
            var image = clanes_pixels(pixels: pixels.baseAddress, bytes_per_row: rowBytes, width: UInt32(width),
                                      height: UInt32(height), channels: Int32(layout.channels),
                                      bytes_per_sample: Int32(layout.bytesPerSample))
            let status = format == .png
                ? clanes_png_decode(data, bytes.count, &image, &message, message.count)
                : clanes_jpeg_decode(data, bytes.count, Int32(scaleDenominator), &image, &message, message.count)
            if let error = decodeError(status, message, format: format) {
                throw error // the half-written buffer is released, never exposed
            }
        }
    }

    /// The JPEG size after DCT scaling by `1/denominator`.
    static func jpegScaledSize(width: Int, height: Int, denominator: Int) -> (width: Int, height: Int) {
        (Int(clanes_jpeg_scaled_dimension(UInt32(width), Int32(denominator))),
         Int(clanes_jpeg_scaled_dimension(UInt32(height), Int32(denominator))))
    }
}
