/// An image file format, recognised from the first bytes of the data (never from a file name).
/// PNG, JPEG, WebP, GIF, AVIF, HEIF and JPEG XL can be decoded; the others are recognised so errors can say what
/// the data actually was.
///
/// ```swift
/// ImageFormat.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])   // .png
/// ImageFormat.sniff(Array("<!DOCTYPE html>".utf8))                       // nil
/// ```
public enum ImageFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    /// PNG (`89 50 4E 47 0D 0A 1A 0A`).
    case png
    /// JPEG (`FF D8 FF`).
    case jpeg
    /// GIF87a / GIF89a (giflib; animated GIFs through ``ImageDecoder/decodeAnimation(_:maxPixels:maxBytes:maxFrames:)``).
    case gif
    /// WebP (`RIFF....WEBP`: lossy, lossless, alpha, animated; libwebp).
    case webp
    /// Windows bitmap (`BM`; recognised, not decoded).
    case bmp
    /// TIFF (`II*\0` / `MM\0*`; recognised, not decoded).
    case tiff
    /// HEIF / HEIC (`ftyp` brands heic, heix, mif1, ...; libheif with libde265: the primary image, upright).
    case heif
    /// AVIF (`ftyp` brand avif or avis; libavif).
    case avif
    /// JPEG XL (a bare codestream `FF 0A`, or the `JXL ` container; libjxl: stills and animations, upright).
    case jxl

    /// Whether ``ImageDecoder`` can decode this format.
    public var isDecodable: Bool { self != .bmp && self != .tiff }

    /// The file-name extensions (lower case) of the formats ``ImageDecoder`` decodes: what a folder listing picks up.
    /// The decoder itself goes by the bytes' signature, not the name.
    ///
    /// ```swift
    /// ImageFormat.decodableExtensions.contains("webp")   // true
    /// ```
    public static let decodableExtensions: Set<String> = [
        "png", "jpg", "jpeg", "webp", "gif", "avif", "heic", "heif", "hif", "jxl",
    ]

    public var description: String { self == .jxl ? "JPEG XL" : rawValue.uppercased() }

    /// The format whose signature starts `bytes`, or nil when none matches.
    ///
    /// ```swift
    /// ImageFormat.sniff(try Data(contentsOf: url))   // ignores the URL's extension
    /// ```
    public static func sniff(_ bytes: some Collection<UInt8>) -> ImageFormat? {
        let head = Array(bytes.prefix(16))
        func starts(with signature: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + signature.count && Array(head[offset..<(offset + signature.count)]) == signature
        }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(with: [0xFF, 0x0A]) || starts(with: [0, 0, 0, 0x0C] + Array("JXL ".utf8) + [0x0D, 0x0A, 0x87, 0x0A]) {
            return .jxl
        }
        if starts(with: Array("GIF87a".utf8)) || starts(with: Array("GIF89a".utf8)) { return .gif }
        if starts(with: Array("RIFF".utf8)) && starts(with: Array("WEBP".utf8), at: 8) { return .webp }
        if starts(with: Array("BM".utf8)) && head.count >= 14 { return .bmp }
        if starts(with: [0x49, 0x49, 0x2A, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts(with: Array("ftyp".utf8), at: 4) && head.count >= 12 {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            if brand == "avif" || brand == "avis" { return .avif }
            if ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"].contains(brand) { return .heif }
        }
        return nil
    }
}

/// What a piece of data looks like, as far as its first bytes tell. Carried by
/// ``ImageError/unsupportedFormat(_:)`` so a caller can tell an empty body or an HTML error
/// page from a real but unsupported image.
///
/// ```swift
/// SniffedContent(sniffing: Array("<html><body>502</body></html>".utf8))   // .markup
/// SniffedContent(sniffing: [UInt8]())                                      // .empty
/// ```
public enum SniffedContent: Sendable, Hashable, CustomStringConvertible {
    /// No bytes at all.
    case empty
    /// An image format (decodable or not).
    case image(ImageFormat)
    /// HTML, XML or SVG text: typically an error page served instead of an image.
    case markup
    /// Other text, such as JSON or a plain-text error message.
    case text
    /// Binary data of no recognised kind.
    case unknown

    /// Classifies `bytes` by their first bytes.
    ///
    /// ```swift
    /// if case .markup = SniffedContent(sniffing: body) { print("got an HTML page") }
    /// ```
    public init(sniffing bytes: some Collection<UInt8>) {
        if bytes.isEmpty {
            self = .empty
            return
        }
        if let format = ImageFormat.sniff(bytes) {
            self = .image(format)
            return
        }
        var head = Array(bytes.prefix(512))
        if head.starts(with: [0xEF, 0xBB, 0xBF]) {
            head.removeFirst(3) // UTF-8 byte order mark
        }
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        let trimmed = head.drop(while: isSpace)
        if trimmed.first == UInt8(ascii: "<") {
            self = .markup
        } else if !trimmed.isEmpty && trimmed.allSatisfy({ isSpace($0) || ($0 >= 0x20 && $0 != 0x7F) }) {
            self = .text
        } else {
            self = .unknown
        }
    }

    public var description: String {
        switch self {
        case .empty: "empty data"
        case .image(let format): "a \(format) image"
        case .markup: "an HTML/XML document (an error page?)"
        case .text: "text"
        case .unknown: "unrecognised binary data"
        }
    }
}
