import CLanesCodecs
import Foundation

/// A PNG's text chunks (`tEXt`, `iTXt`) before its image data, read without decoding pixels (``ThumbnailCache``
/// checks `Thumb::URI` and `Thumb::MTime` with them before it decodes anything).
enum PNGText {
    /// The most text kept, keys and values together.
    static let capacity = 64 << 10

    /// The key → value pairs of `data`'s text chunks (a key given twice: the first). Throws what a decode would for
    /// data that is not a PNG or ends before its image data.
    static func read(_ data: Data) throws -> [String: String] {
        var buffer = [CChar](repeating: 0, count: capacity)
        var length = 0
        var count: Int32 = 0
        var message = CodecBridge.messageBuffer()
        let status = data.withUnsafeBytes { bytes in
            clanes_png_read_text(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &buffer,
                                 buffer.count, &length, &count, &message, message.count)
        }
        if let error = CodecBridge.decodeError(status, message, format: .png) { throw error }
        // `key NUL value NUL` pairs; tEXt is Latin-1 (the Thumb:: values are ASCII).
        let fields = buffer[..<length].split(separator: 0, omittingEmptySubsequences: false).map { field in
            String(field.map { Character(Unicode.Scalar(UInt8(bitPattern: $0))) })
        }
        var pairs: [String: String] = [:]
        for index in stride(from: 0, to: fields.count - 1, by: 2) where pairs[fields[index]] == nil {
            pairs[fields[index]] = fields[index + 1]
        }
        return pairs
    }
}
