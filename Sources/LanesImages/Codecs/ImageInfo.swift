/// What an image header says, read without decoding pixels (see ``ImageDecoder``'s `probe`).
///
/// ```swift
/// let info = try ImageDecoder().probe(data)
/// print(info.format, info.width, info.height, info.orientation)
/// ```
public struct ImageInfo: Sendable, Hashable {
    /// The container format.
    public var format: ImageFormat
    /// Stored width in pixels (before the orientation is applied).
    public var width: Int
    /// Stored height in pixels (before the orientation is applied).
    public var height: Int
    /// The Exif orientation (JPEG APP1); `.up` when there is none. Always `.up` for HEIF and JPEG XL: libheif applies
    /// the container's `irot`/`imir` and libjxl the codestream's orientation as they decode, so their `width` and
    /// `height` are already the upright size (a HEIC's Exif orientation tag is ignored, as the HEIF standard says).
    public var orientation: ExifOrientation
    /// Colour components stored in the file (PNG: channels including alpha; palette = 1).
    public var components: Int
    /// Bits per sample.
    public var bitDepth: Int
    /// Whether the file is an interlaced PNG or a progressive JPEG.
    public var isProgressive: Bool
    /// The layout that holds the stored pixels without loss: grey (with alpha when the PNG has any, tRNS included)
    /// for grey files, RGBA otherwise; 16-bit for a 16-bit PNG. What ``ImageDecoder/init(keepsStoredLayout:)`` decodes to.
    public var storedLayout: PixelLayout
    /// Whether the header says the image is animated (an animated WebP, an AVIF sequence, a JPEG XL animation). A
    /// GIF's frames are counted only when decoded: false here.
    public var isAnimated: Bool
    /// The size of a small copy of the image stored in the file, when it has one: a JPEG's Exif thumbnail (cameras
    /// store a 160x120 one), a HEIF thumbnail item (iPhones store a 320-pixel one), a JPEG XL preview frame. Decodes
    /// always read the full image; a JPEG's Exif thumbnail is a JPEG of its own whose bytes
    /// ``EmbeddedThumbnail/byteRange`` gives, for a quick rendering.
    ///
    /// ```swift
    /// if let thumbnail = try ImageDecoder().probe(data).embeddedThumbnail {
    ///     print("the file carries a \(thumbnail.width)x\(thumbnail.height) thumbnail")
    ///     if let range = thumbnail.byteRange { print(try ImageDecoder().decode(data[range]).width) }
    /// }
    /// ```
    public var embeddedThumbnail: EmbeddedThumbnail?

    /// The size of an image's embedded thumbnail (see ``ImageInfo/embeddedThumbnail``).
    public struct EmbeddedThumbnail: Sendable, Hashable {
        /// Width in pixels, upright.
        public var width: Int
        /// Height in pixels, upright.
        public var height: Int
        /// Where the thumbnail's own file lies in the image's bytes, when it is one (a JPEG's Exif thumbnail: a JPEG
        /// stored as the main image is, so the main image's ``ImageInfo/orientation`` turns it upright); nil for HEIF
        /// and JPEG XL thumbnails.
        public var byteRange: Range<Int>?

        /// Creates a thumbnail size (and where its bytes lie).
        public init(width: Int, height: Int, byteRange: Range<Int>? = nil) {
            self.width = width
            self.height = height
            self.byteRange = byteRange
        }
    }

    /// Creates an info value (mostly useful to test code that consumes one).
    public init(format: ImageFormat, width: Int, height: Int, orientation: ExifOrientation = .up,
                components: Int = 3, bitDepth: Int = 8, isProgressive: Bool = false,
                storedLayout: PixelLayout = .rgba8, isAnimated: Bool = false,
                embeddedThumbnail: EmbeddedThumbnail? = nil) {
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
        self.components = components
        self.bitDepth = bitDepth
        self.isProgressive = isProgressive
        self.storedLayout = storedLayout
        self.isAnimated = isAnimated
        self.embeddedThumbnail = embeddedThumbnail
    }

    /// Width as displayed, after the orientation is applied.
    public var displayWidth: Int { orientation.swapsDimensions ? height : width }
    /// Height as displayed, after the orientation is applied.
    public var displayHeight: Int { orientation.swapsDimensions ? width : height }

    /// `width * height`, or nil when the product overflows `Int`.
    public var pixelCount: Int? {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? nil : product
    }
}
