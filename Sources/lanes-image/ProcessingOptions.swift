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

/// The encoded format of the outputs; the file extension is the name given (`png`, `jpeg`, `jpg`).
enum OutputFormat: String, CaseIterable {
    case png
    case jpeg
    case jpg

    var fileExtension: String { rawValue }

    func encoderFormat(quality: Int, compression: Int, pngFilter: ImageEncoder.PNGFilter) -> ImageEncoder.Format {
        self == .png ? .png(compressionLevel: compression, filter: pngFilter) : .jpeg(quality: quality)
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
    /// zlib level and row filter of PNG outputs: libvips' `pngsave` defaults (6, no filter), so a
    /// comparison with `vips` encodes alike.
    var compression = 6
    var pngFilter = ImageEncoder.PNGFilter.none
    /// Replace existing files in the output folder (never an input) instead of numbering the new one.
    var overwrite = false

    var targetSize: TargetSize? { resize?.targetSize }

    var processors: [any ImageProcessor] {
        var list: [any ImageProcessor] = []
        if let blurSigma { list.append(GaussianBlur(sigma: blurSigma)) }
        if tiltShift { list.append(TiltShift()) }
        if greyscale { list.append(Greyscale()) }
        return list
    }

    var encoderFormat: ImageEncoder.Format { format.encoderFormat(quality: quality, compression: compression, pngFilter: pngFilter) }

    var description: String {
        var steps = ["decode" + (resize.map { " to fit \($0)" } ?? "")]
        steps += processors.map(\.identifier)
        steps.append(format == .png ? "png(level \(compression), filter \(pngFilter.rawValue))" : "\(format.rawValue)(quality \(quality))")
        return steps.joined(separator: " → ")
    }
}
