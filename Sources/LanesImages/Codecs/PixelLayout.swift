/// How a ``Bitmap``'s pixels are stored: how many channels each pixel has and how many bytes each sample takes.
///
/// Colour pixels are always RGBA (an opaque image carries alpha 255); grey pixels are one channel, or two with alpha.
/// 16-bit samples are native-endian `UInt16`s (the codecs swap to and from PNG's big-endian order). Decoders keep a
/// file's layout when asked to (``ImageDecoder/init(keepsStoredLayout:)``); encoders write what they are given.
///
/// ```swift
/// let layout = PixelLayout.grey16
/// layout.bytesPerPixel   // 2
/// layout.hasAlpha        // false
/// PixelLayout(channels: 2, bytesPerSample: 1)   // .greyAlpha8
/// ```
public struct PixelLayout: Sendable, Hashable, CustomStringConvertible {
    /// Samples per pixel: 1 (grey), 2 (grey, alpha) or 4 (red, green, blue, alpha).
    public let channels: Int
    /// Bytes per sample: 1 (0...255) or 2 (0...65535, native-endian).
    public let bytesPerSample: Int

    /// The layout of `channels` samples of `bytesPerSample` bytes; nil unless channels is 1, 2 or 4 and
    /// bytesPerSample 1 or 2.
    public init?(channels: Int, bytesPerSample: Int) {
        guard [1, 2, 4].contains(channels), [1, 2].contains(bytesPerSample) else { return nil }
        self.channels = channels
        self.bytesPerSample = bytesPerSample
    }

    private init(unchecked channels: Int, _ bytesPerSample: Int) {
        self.channels = channels
        self.bytesPerSample = bytesPerSample
    }

    /// 8-bit red, green, blue, alpha: what every processor works in, and the default everywhere.
    public static let rgba8 = PixelLayout(unchecked: 4, 1)
    /// 8-bit grey.
    public static let grey8 = PixelLayout(unchecked: 1, 1)
    /// 8-bit grey and alpha.
    public static let greyAlpha8 = PixelLayout(unchecked: 2, 1)
    /// 16-bit red, green, blue, alpha.
    public static let rgba16 = PixelLayout(unchecked: 4, 2)
    /// 16-bit grey.
    public static let grey16 = PixelLayout(unchecked: 1, 2)
    /// 16-bit grey and alpha.
    public static let greyAlpha16 = PixelLayout(unchecked: 2, 2)

    /// Bytes per pixel: `channels * bytesPerSample`.
    public var bytesPerPixel: Int { channels * bytesPerSample }
    /// Bits per sample: 8 or 16.
    public var bitDepth: Int { bytesPerSample * 8 }
    /// Whether pixels carry an alpha channel.
    public var hasAlpha: Bool { channels == 2 || channels == 4 }
    /// Whether pixels are grey (one colour channel).
    public var isGrey: Bool { channels <= 2 }
    /// The largest sample value: 255 or 65535.
    public var maxSample: Int { bytesPerSample == 1 ? 255 : 65535 }

    /// This layout with 8-bit samples (the same channels).
    public var eightBit: PixelLayout { PixelLayout(unchecked: channels, 1) }
    /// This layout without alpha (grey stays grey, colour stays RGBA: its alpha is then always the maximum).
    public var opaque: PixelLayout { channels == 2 ? PixelLayout(unchecked: 1, bytesPerSample) : self }

    /// `rgba8`, `grey16`, `greyAlpha8`...
    public var description: String {
        let name = channels == 1 ? "grey" : channels == 2 ? "greyAlpha" : "rgba"
        return name + String(bitDepth)
    }
}
