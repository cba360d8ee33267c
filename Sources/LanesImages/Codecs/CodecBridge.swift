import CLanesCodecs

/// The encoder's status codes as ``ImageError``s, and the header probe with its check of what the bytes are
/// (decoding goes through ``DecoderContext``).
enum CodecBridge {
    /// A zeroed buffer for the C side's error message.
    static func messageBuffer() -> [CChar] {
        [CChar](repeating: 0, count: Int(CLANES_MESSAGE_CAPACITY))
    }

    static func text(of message: [CChar]) -> String {
        let bytes = message.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
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
    static func probe(_ bytes: UnsafeRawBufferPointer, maxPixels: Int = .max) throws -> ImageInfo {
        try requireImage(bytes)
        return try DecoderContext(.memory(bytes), options: .init(maxPixels: maxPixels)).header()
    }

    /// Throws ``ImageError/unsupportedFormat(_:)`` unless `bytes` start like an image the decoder reads.
    static func requireImage(_ bytes: some Collection<UInt8>) throws {
        let content = SniffedContent(sniffing: bytes)
        guard case .image(let format) = content, format.isDecodable else {
            throw ImageError.unsupportedFormat(content)
        }
    }

    /// The JPEG size after DCT scaling by `1/denominator`.
    static func jpegScaledSize(width: Int, height: Int, denominator: Int) -> (width: Int, height: Int) {
        (Int(clanes_jpeg_scaled_dimension(UInt32(width), Int32(denominator))),
         Int(clanes_jpeg_scaled_dimension(UInt32(height), Int32(denominator))))
    }
}
