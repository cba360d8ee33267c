import Foundation

/// A PNG's text chunks (`tEXt`, `iTXt`) before its image data, read without decoding pixels (``ThumbnailCache``
/// checks `Thumb::URI` and `Thumb::MTime` with them before it decodes anything).
enum PNGText {
    /// The most text kept, keys and values together.
    static let capacity = 64 << 10

    /// The key → value pairs of `data`'s text chunks (a key given twice: the first). Throws what a decode would for
    /// data that is not a PNG or ends before its image data.
    static func read(_ data: Data) throws -> [String: String] {
        let buffer = try data.withUnsafeBytes { bytes in
            try DecoderContext(.memory(bytes)).readText(capacity: capacity)
        }
        // `key NUL value NUL` pairs; tEXt is Latin-1 (the Thumb:: values are ASCII).
        let fields = buffer.split(separator: 0, omittingEmptySubsequences: false).map { field in
            String(field.map { Character(Unicode.Scalar(UInt8(bitPattern: $0))) })
        }
        var pairs: [String: String] = [:]
        for index in stride(from: 0, to: fields.count - 1, by: 2) where pairs[fields[index]] == nil {
            pairs[fields[index]] = fields[index + 1]
        }
        return pairs
    }
}
