import LanesImages

/// `--resize WxH | Wx | xH`: the box an image is scaled down to fit (aspect kept, never enlarged).
/// It becomes the request's target size, so a JPEG is decoded at a reduced DCT scale when it can be.
struct ResizeSpec: Equatable, CustomStringConvertible {
    var width: Int?
    var height: Int?

    /// Parses `800x600`, `800x` or `x600` (an `X` works too); nil when the text is not one of those.
    init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        func side(_ part: Substring) -> Int?? {
            if part.isEmpty { return .some(nil) }
            guard let value = Int(part), value > 0 else { return nil }
            return .some(value)
        }
        guard let width = side(parts[0]), let height = side(parts[1]), width != nil || height != nil else { return nil }
        self.width = width
        self.height = height
    }

    var targetSize: TargetSize { TargetSize(maxWidth: width ?? .max, maxHeight: height ?? .max) }

    var description: String { "\(width.map(String.init) ?? "")x\(height.map(String.init) ?? "")" }
}

/// The encoded format of the outputs; the file extension is the name given (`png`, `jpeg`, `jpg`, `webp`, `avif`).
enum OutputFormat: String, CaseIterable {
    case png
    case jpeg
    case jpg
    case webp
    case avif

    var fileExtension: String { rawValue }

    var isJPEG: Bool { self == .jpeg || self == .jpg }

    /// `--quality` when not given: libjpeg's 85 as before, libvips' defaults for WebP (75) and AVIF (50).
    var defaultQuality: Int {
        switch self {
        case .webp: 75
        case .avif: 50
        default: 85
        }
    }

    /// The `--quality` range: 1...100 for JPEG, 0...100 for WebP and AVIF; nil for PNG (it has none).
    var qualityRange: ClosedRange<Int>? {
        switch self {
        case .png: nil
        case .jpeg, .jpg: 1...100
        case .webp, .avif: 0...100
        }
    }

    /// The `--effort` range (libvips' names): libwebp's method 0...6 for WebP, 0...9 for AVIF; nil for the others.
    var effortRange: ClosedRange<Int>? {
        switch self {
        case .webp: 0...6
        case .avif: 0...9
        case .png, .jpeg, .jpg: nil
        }
    }

}

/// Everything done to each image: decode (to fit `resize`), the processors in a fixed order
/// (blur, tilt-shift, greyscale), then encode.
struct ProcessingPlan: CustomStringConvertible {
    var resize: ResizeSpec?
    var blurSigma: Double?
    var tiltShift = false
    var greyscale = false
    var format = OutputFormat.png
    var quality = 85
    /// A lossless WebP (`--lossless`; WebP only).
    var lossless = false
    /// WebP's method 0...6 or AVIF's effort 0...9 (`--effort`; 4 like libvips).
    var effort = 4
    /// Threads of the AV1 encoder in an AVIF output (`--threads`).
    var encoderThreads = 1
    /// Optimal Huffman tables in JPEG outputs (`--optimize-jpeg`). Off by default, as in libvips: a JPEG then streams
    /// in a few rows, where optimal tables need libjpeg to hold every coefficient of the image.
    var optimizedJPEG = false
    /// zlib level and row filter of PNG outputs: libvips' `pngsave` defaults (6, no filter), so a
    /// comparison with `vips` encodes alike.
    var compression = 6
    var pngFilter = ImageEncoder.PNGFilter.none
    /// Replace existing files in the output folder (never an input) instead of numbering the new one.
    var overwrite = false
    /// What transparent pixels are flattened on in a JPEG (which has no alpha).
    var background = RGBA.white

    var targetSize: TargetSize? { resize?.targetSize }

    var processors: [any ImageProcessor] {
        var list: [any ImageProcessor] = []
        if let blurSigma { list.append(GaussianBlur(sigma: blurSigma)) }
        if tiltShift { list.append(TiltShift()) }
        if greyscale { list.append(Greyscale()) }
        return list
    }

    var encoderFormat: ImageEncoder.Format {
        switch format {
        case .png: .png(compressionLevel: compression, filter: pngFilter)
        case .jpeg, .jpg: .jpeg(quality: quality, background: background, optimizedCoding: optimizedJPEG)
        case .webp: .webp(quality: quality, lossless: lossless, effort: effort)
        case .avif: .avif(quality: quality, effort: effort)
        }
    }

    /// The bitmap as it is written: after `--greyscale` it is one grey channel (plus alpha when it has one), at its
    /// depth; the processors leave it RGBA with red = green = blue, which would be written as a colour file.
    func finished(_ bitmap: Bitmap) -> Bitmap {
        guard greyscale, !bitmap.layout.isGrey else { return bitmap }
        let grey = PixelLayout(channels: bitmap.layout.hasAlpha && !bitmap.isOpaque ? 2 : 1,
                               bytesPerSample: bitmap.layout.bytesPerSample)!
        return bitmap.converted(to: grey)
    }

    var description: String {
        var steps = ["decode" + (resize.map { " to fit \($0)" } ?? "")]
        steps += processors.map(\.identifier)
        switch format {
        case .png: steps.append("png(level \(compression), filter \(pngFilter.rawValue))")
        case .jpeg, .jpg: steps.append("\(format.rawValue)(quality \(quality), on \(BackgroundColour.name(of: background)))")
        case .webp: steps.append(lossless ? "webp(lossless, effort \(effort))" : "webp(quality \(quality), effort \(effort))")
        case .avif: steps.append("avif(quality \(quality), effort \(effort))")
        }
        return steps.joined(separator: " → ")
    }
}

/// `--background`: a colour name or hex code, parsed strictly (the value may come from anywhere: a script, a file).
enum BackgroundColour {
    static let names: [String: RGBA] = [
        "white": .white, "black": .black, "grey": RGBA(grey: 128), "gray": RGBA(grey: 128),
        "red": RGBA(red: 255, green: 0, blue: 0), "green": RGBA(red: 0, green: 128, blue: 0),
        "blue": RGBA(red: 0, green: 0, blue: 255),
    ]

    /// `white`, `black`, `grey`/`gray`, `red`, `green`, `blue`, `#RGB`, `#RRGGBB` (the `#` optional, any case);
    /// nil for anything else.
    static func parse(_ text: String) -> RGBA? {
        let lowered = text.lowercased()
        if let named = names[lowered] { return named }
        let hex = lowered.hasPrefix("#") ? lowered.dropFirst() : Substring(lowered)
        guard hex.count == 3 || hex.count == 6, hex.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
        let digits = hex.count == 3 ? String(hex.flatMap { [$0, $0] }) : String(hex)
        guard let value = UInt32(digits, radix: 16) else { return nil }
        return RGBA(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }

    /// `#RRGGBB` of a colour (for the plan's description).
    static func name(of colour: RGBA) -> String {
        "#" + [colour.red, colour.green, colour.blue].map { String($0, radix: 16, uppercase: true) }
            .map { $0.count == 1 ? "0" + $0 : $0 }.joined()
    }
}
