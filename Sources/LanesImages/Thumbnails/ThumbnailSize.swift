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

    /// The sizes whose thumbnails may be shown for `target`, best first: ``fitting(_:)`` and the larger ones (scaled
    /// down), then the next smaller one when its box is at least three quarters of the target's side (shown at its
    /// own size, never enlarged: gThumb and Files write 128-pixel `normal` thumbnails by default, which a 160-pixel
    /// cell then shows rather than decoding the photo).
    ///
    /// ```swift
    /// ThumbnailSize.candidates(for: TargetSize(maxWidth: 160, maxHeight: 120))   // [.large, .xLarge, .xxLarge, .normal]
    /// ```
    public static func candidates(for target: TargetSize) -> [ThumbnailSize] {
        guard let fitting = fitting(target) else { return [] }
        let side = max(target.maxWidth, target.maxHeight)
        let larger = allCases.filter { $0 >= fitting }
        let smaller = allCases.last { $0 < fitting && 4 * $0.pixels >= 3 * side }
        return larger + (smaller.map { [$0] } ?? [])
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.pixels < rhs.pixels }
}
