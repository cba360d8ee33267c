/// One RGBA pixel with 8 bits per channel (straight, not premultiplied, alpha).
///
/// ```swift
/// let orange = RGBA(red: 255, green: 128, blue: 0)
/// let halfGrey = RGBA(grey: 128, alpha: 128)
/// ```
public struct RGBA: Sendable, Hashable, CustomStringConvertible {
    /// Red, 0...255.
    public var red: UInt8
    /// Green, 0...255.
    public var green: UInt8
    /// Blue, 0...255.
    public var blue: UInt8
    /// Opacity, 0 (transparent) ... 255 (opaque).
    public var alpha: UInt8

    /// Creates a pixel; alpha defaults to opaque.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Creates a grey pixel (red = green = blue = `grey`).
    public init(grey: UInt8, alpha: UInt8 = 255) {
        self.init(red: grey, green: grey, blue: grey, alpha: alpha)
    }

    /// Opaque black.
    public static let black = RGBA(grey: 0)
    /// Opaque white.
    public static let white = RGBA(grey: 255)
    /// Fully transparent black.
    public static let clear = RGBA(grey: 0, alpha: 0)

    public var description: String { "RGBA(\(red), \(green), \(blue), \(alpha))" }
}

/// A bitmap: `height` rows of `width` pixels stored in a ``PixelLayout`` (8-bit RGBA unless said otherwise: 4 bytes
/// R, G, B, A per pixel), rows tightly packed (`bytesPerRow == width * layout.bytesPerPixel`), top row first. A value
/// type: copies are cheap (copy-on-write) and it can be sent between tasks.
///
/// ```swift
/// var bitmap = Bitmap(width: 2, height: 1, filledWith: .white)
/// bitmap[1, 0] = RGBA(red: 255, green: 0, blue: 0)
/// print(bitmap[1, 0].red)   // 255
/// let grey = Bitmap(width: 2, height: 1, layout: .grey8, pixels: [0, 255])
/// print(grey[1, 0])         // RGBA(255, 255, 255, 255)
/// ```
public struct Bitmap: Sendable, Equatable {
    /// Width in pixels (at least 1).
    public let width: Int
    /// Height in pixels (at least 1).
    public let height: Int
    /// How each pixel is stored (``PixelLayout/rgba8`` unless made otherwise).
    public let layout: PixelLayout
    /// The pixel bytes, row after row, `bytesPerRow * height` of them.
    public private(set) var pixels: [UInt8]

    /// Bytes in one row: always `width * layout.bytesPerPixel` (rows are not padded).
    public var bytesPerRow: Int { width * layout.bytesPerPixel }
    /// Number of pixels, `width * height`.
    public var pixelCount: Int { width * height }
    /// The bytes the pixels occupy (`bytesPerRow * height`): a bitmap's cost in caches and memory budgets.
    public var byteCount: Int { pixels.count }

    /// Wraps existing RGBA8 bytes. `pixels.count` must be `width * height * 4`.
    ///
    /// ```swift
    /// let red = Bitmap(width: 1, height: 1, pixels: [255, 0, 0, 255])
    /// ```
    public init(width: Int, height: Int, pixels: [UInt8]) {
        self.init(width: width, height: height, layout: .rgba8, pixels: pixels)
    }

    /// Wraps existing bytes in `layout` (16-bit samples native-endian). `pixels.count` must be
    /// `width * height * layout.bytesPerPixel`.
    ///
    /// ```swift
    /// let darkGrey = Bitmap(width: 2, height: 1, layout: .grey8, pixels: [64, 64])
    /// ```
    public init(width: Int, height: Int, layout: PixelLayout, pixels: [UInt8]) {
        precondition(width > 0 && height > 0, "a bitmap needs a positive size, got \(width)x\(height)")
        precondition(pixels.count == width * height * layout.bytesPerPixel,
                     "\(width)x\(height) \(layout) needs \(width * height * layout.bytesPerPixel) bytes, got \(pixels.count)")
        self.width = width
        self.height = height
        self.layout = layout
        self.pixels = pixels
    }

    /// A bitmap with every pixel set to `colour` (converted to `layout`: grey layouts take its luma).
    ///
    /// ```swift
    /// let canvas = Bitmap(width: 64, height: 64, filledWith: .white)
    /// let paper = Bitmap(width: 64, height: 64, filledWith: .white, layout: .grey16)
    /// ```
    public init(width: Int, height: Int, filledWith colour: RGBA = .clear, layout: PixelLayout = .rgba8) {
        let pixel = PixelConversion.encode(colour, as: layout)
        self.init(width: width, height: height, layout: layout) { bytes in
            let raw = UnsafeMutableRawBufferPointer(bytes)
            pixel.withUnsafeBytes { one in
                // The first pixel, then doubling copies: a few memcpys instead of a loop per byte.
                raw.baseAddress!.copyMemory(from: one.baseAddress!, byteCount: one.count)
                var filled = one.count
                while filled < raw.count {
                    let chunk = min(filled, raw.count - filled)
                    (raw.baseAddress! + filled).copyMemory(from: raw.baseAddress!, byteCount: chunk)
                    filled += chunk
                }
            }
        }
    }

    /// A bitmap whose bytes are written by `initializer`, which must set all of them.
    /// Skips zero-filling, which matters for decoders and processors writing megapixels.
    init(width: Int, height: Int, layout: PixelLayout = .rgba8,
         initializingWith initializer: (UnsafeMutableBufferPointer<UInt8>) throws -> Void) rethrows {
        precondition(width > 0 && height > 0, "a bitmap needs a positive size, got \(width)x\(height)")
        let count = width * height * layout.bytesPerPixel
        let bytes = try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            try initializer(buffer)
            initialized = count
        }
        self.init(width: width, height: height, layout: layout, pixels: bytes)
    }

    /// The pixel in column `x`, row `y` (both from 0, row 0 at the top), as 8-bit RGBA: grey is spread to red, green
    /// and blue, 16-bit samples are rounded to 8 bits. Setting converts the other way (grey layouts store the luma).
    public subscript(x: Int, y: Int) -> RGBA {
        get {
            precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) is outside \(width)x\(height)")
            let i = (y * width + x) * layout.bytesPerPixel
            if layout == .rgba8 {
                return RGBA(red: pixels[i], green: pixels[i + 1], blue: pixels[i + 2], alpha: pixels[i + 3])
            }
            return PixelConversion.decode(pixels[i..<(i + layout.bytesPerPixel)], as: layout)
        }
        set {
            precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) is outside \(width)x\(height)")
            let i = (y * width + x) * layout.bytesPerPixel
            for (k, byte) in PixelConversion.encode(newValue, as: layout).enumerated() { pixels[i + k] = byte }
        }
    }

    /// Calls `body` with the pixel bytes (read-only).
    ///
    /// ```swift
    /// let opaque = bitmap.withUnsafePixels { bytes in
    ///     stride(from: 3, to: bytes.count, by: 4).allSatisfy { bytes[$0] == 255 }
    /// }
    /// ```
    public func withUnsafePixels<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try pixels.withUnsafeBufferPointer(body)
    }

    /// Calls `body` with the pixel bytes for in-place editing (the size cannot change).
    ///
    /// ```swift
    /// var inverted = bitmap
    /// inverted.withUnsafeMutablePixels { bytes in
    ///     for i in stride(from: 0, to: bytes.count, by: 4) { bytes[i] = 255 - bytes[i] }
    /// }
    /// ```
    public mutating func withUnsafeMutablePixels<R>(
        _ body: (UnsafeMutableBufferPointer<UInt8>) throws -> R
    ) rethrows -> R {
        try pixels.withUnsafeMutableBufferPointer { buffer in try body(buffer) }
    }
}
