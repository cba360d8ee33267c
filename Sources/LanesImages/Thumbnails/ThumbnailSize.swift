/// The sizes of the freedesktop thumbnail cache (the Thumbnail Managing Standard): each a folder of PNGs no larger
/// than its box.
///
/// ```swift
/// ThumbnailSize.large.pixels                                           // 256
/// ThumbnailSize.fitting(TargetSize(maxWidth: 160, maxHeight: 120))    // .large: the smallest that covers it
/// ```
public enum ThumbnailSize: String, Sendable, Hashable, CaseIterable, Comparable {
    /// 128 × 128, in `normal/`.
    case normal = "normal"
    /// 256 × 256, in `large/`.
    case large = "large"
    /// 512 × 512, in `x-large/`.
    case xLarge = "x-large"
    /// 1024 × 1024, in `xx-large/`.
    case xxLarge = "xx-large"

    /// The side of the box a thumbnail of this size fits in.
    public var pixels: Int {
        switch self {
        case .normal: 128
        case .large: 256
        case .xLarge: 512
        case .xxLarge: 1024
        }
    }

    /// The folder under the cache's directory that holds thumbnails of this size.
    public var folderName: String { rawValue }

    /// The box a thumbnail of this size fits in.
    public var targetSize: TargetSize { TargetSize(maxWidth: pixels, maxHeight: pixels) }

    /// The smallest size whose thumbnails cover `target` (both sides), or nil when even 1024 is too small (or the
    /// target is unbounded): a thumbnail is then not the right source.
    ///
    /// ```swift
    /// ThumbnailSize.fitting(TargetSize(maxWidth: 2000))   // nil
    /// ```
    public static func fitting(_ target: TargetSize) -> ThumbnailSize? {
        let side = max(target.maxWidth, target.maxHeight)
        return allCases.first { $0.pixels >= side }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.pixels < rhs.pixels }
}
