import LanesImages

/// A row's index written into its image's pixels, so a test (or the app itself) can tell which row an image belongs to:
/// a red start block, 16 bits as black/white blocks (most significant first), a blue end block, each block 4 × 6
/// pixels, drawn 4 pixels from the left, 3 pixels above the bottom edge.
enum IndexBarcode {
    static let blockWidth = 4
    static let height = 6
    static let bits = 16
    static let width = blockWidth * (bits + 2)
    static let left = 4
    static let bottomMargin = 3

    /// Stamps `index` into `bitmap` (which must be at least `width + left` wide and `height + bottomMargin` tall).
    static func stamp(_ index: Int, into bitmap: inout Bitmap) {
        let top = bitmap.height - bottomMargin - height
        guard top >= 0, bitmap.width >= left + width else { return }
        let rowBytes = bitmap.bytesPerRow
        bitmap.withUnsafeMutablePixels { pixels in
            for block in 0..<(bits + 2) {
                let colour: (UInt8, UInt8, UInt8)
                switch block {
                case 0: colour = (255, 0, 0)
                case bits + 1: colour = (0, 0, 255)
                default: colour = (index >> (bits - block)) & 1 == 1 ? (255, 255, 255) : (0, 0, 0)
                }
                for y in top..<(top + height) {
                    for x in 0..<blockWidth {
                        let offset = y * rowBytes + (left + block * blockWidth + x) * 4
                        pixels[offset] = colour.0
                        pixels[offset + 1] = colour.1
                        pixels[offset + 2] = colour.2
                        pixels[offset + 3] = 255
                    }
                }
            }
        }
    }

    /// The index stamped in `bitmap`, or nil when there is no readable barcode where ``stamp(_:into:)`` puts it.
    static func read(_ bitmap: Bitmap) -> Int? {
        let y = bitmap.height - bottomMargin - height / 2
        guard y >= 0, bitmap.width >= left + width else { return nil }
        return read(pixel: { x in
            let colour = bitmap[x, y]
            return (colour.red, colour.green, colour.blue)
        }, left: left)
    }

    /// Reads a barcode whose start block begins at column `left` of a row, sampling the middle of each block.
    static func read(pixel: (Int) -> (UInt8, UInt8, UInt8), left: Int) -> Int? {
        func centre(_ block: Int) -> (UInt8, UInt8, UInt8) { pixel(left + block * blockWidth + blockWidth / 2) }
        let start = centre(0)
        let end = centre(bits + 1)
        guard start.0 > 180, start.1 < 80, start.2 < 80, end.2 > 180, end.0 < 80, end.1 < 80 else { return nil }
        var value = 0
        for block in 1...bits {
            let (r, g, b) = centre(block)
            let level = (Int(r) + Int(g) + Int(b)) / 3
            guard level > 200 || level < 55 else { return nil }
            value = value << 1 | (level > 127 ? 1 : 0)
        }
        return value
    }
}

/// The last processor of a generated entry: stamps its index (after tilt-shift, so the blur never smears it).
struct IndexStamp: ImageProcessor {
    let index: Int
    var identifier: String { "indexStamp(\(index))" }

    func process(_ bitmap: Bitmap, isCancelled: @Sendable () -> Bool) throws -> Bitmap {
        if isCancelled() { throw ImageError.cancelled }
        var copy = bitmap
        IndexBarcode.stamp(index, into: &copy)
        return copy
    }
}
