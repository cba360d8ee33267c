/// The Exif orientation tag (0x0112): how the stored pixels must be transformed to display
/// the picture upright. Raw values are the tag's 1...8; names follow the usual convention
/// (`right` = the stored image must be rotated 90° clockwise).
///
/// ```swift
/// let upright = ExifOrientation.right.apply(to: stored)   // rotates 90° clockwise
/// upright.width == stored.height                          // true
/// ```
public enum ExifOrientation: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// 1: as stored.
    case up = 1
    /// 2: mirrored left-right.
    case upMirrored = 2
    /// 3: rotated 180°.
    case down = 3
    /// 4: mirrored top-bottom.
    case downMirrored = 4
    /// 5: transposed (mirrored along the main diagonal).
    case leftMirrored = 5
    /// 6: rotated 90° clockwise.
    case right = 6
    /// 7: transversed (mirrored along the anti-diagonal).
    case rightMirrored = 7
    /// 8: rotated 90° counter-clockwise.
    case left = 8

    /// Whether the displayed image has width and height swapped (values 5...8).
    public var swapsDimensions: Bool { rawValue >= 5 }

    public var description: String { "orientation \(rawValue) (\(self.name))" }

    private var name: String {
        switch self {
        case .up: "up"
        case .upMirrored: "up, mirrored"
        case .down: "rotated 180°"
        case .downMirrored: "down, mirrored"
        case .leftMirrored: "transposed"
        case .right: "rotated 90° clockwise"
        case .rightMirrored: "transversed"
        case .left: "rotated 90° counter-clockwise"
        }
    }

    /// The upright bitmap for a stored bitmap tagged with this orientation.
    ///
    /// ```swift
    /// let upright = ExifOrientation.left.apply(to: stored)   // rotated 90° counter-clockwise
    /// ```
    public func apply(to bitmap: Bitmap) -> Bitmap {
        if self == .up {
            return bitmap
        }
        let w = bitmap.width, h = bitmap.height
        let outWidth = swapsDimensions ? h : w
        let outHeight = swapsDimensions ? w : h
        // Source pixel for output (x, y) = origin + x * stepX + y * stepY (in pixels).
        let (origin, stepX, stepY): (Int, Int, Int)
        switch self {
        case .up: (origin, stepX, stepY) = (0, 1, w)
        case .upMirrored: (origin, stepX, stepY) = (w - 1, -1, w)
        case .down: (origin, stepX, stepY) = ((h - 1) * w + w - 1, -1, -w)
        case .downMirrored: (origin, stepX, stepY) = ((h - 1) * w, 1, -w)
        case .leftMirrored: (origin, stepX, stepY) = (0, w, 1)                   // src(x: y', y: x')
        case .right: (origin, stepX, stepY) = ((h - 1) * w, -w, 1)              // src(x: y', y: h-1-x')
        case .rightMirrored: (origin, stepX, stepY) = ((h - 1) * w + w - 1, -w, -1) // src(w-1-y', h-1-x')
        case .left: (origin, stepX, stepY) = (w - 1, w, -1)                      // src(x: w-1-y', y: x')
        }
        return bitmap.withUnsafePixels { source in
            Bitmap(width: outWidth, height: outHeight, layout: bitmap.layout) { destination in
                let src = UnsafeRawPointer(source.baseAddress!)
                let dst = UnsafeMutableRawPointer(destination.baseAddress!)
                // Pixels move whole, whatever their layout (1, 2, 4 or 8 bytes): nothing is converted.
                func copy<Pixel>(_: Pixel.Type) {
                    let size = MemoryLayout<Pixel>.size
                    var out = 0
                    for y in 0..<outHeight {
                        var index = origin + y * stepY
                        for _ in 0..<outWidth {
                            let pixel = src.loadUnaligned(fromByteOffset: index * size, as: Pixel.self)
                            dst.storeBytes(of: pixel, toByteOffset: out * size, as: Pixel.self)
                            index += stepX
                            out += 1
                        }
                    }
                }
                switch bitmap.layout.bytesPerPixel {
                case 1: copy(UInt8.self)
                case 2: copy(UInt16.self)
                case 4: copy(UInt32.self)
                default: copy(UInt64.self)
                }
            }
        }
    }
}

extension Bitmap {
    /// This bitmap transformed for display according to an Exif orientation.
    ///
    /// ```swift
    /// let upright = stored.oriented(.left)
    /// ```
    public func oriented(_ orientation: ExifOrientation) -> Bitmap {
        orientation.apply(to: self)
    }
}
