/// A box an image should fit in: the result keeps its aspect ratio, is no larger than
/// `maxWidth` x `maxHeight`, and is never enlarged.
///
/// ```swift
/// let thumb = TargetSize(maxWidth: 200, maxHeight: 200)
/// thumb.fittedSize(width: 4000, height: 3000)   // (width: 200, height: 150)
/// TargetSize(maxWidth: 800).fittedSize(width: 400, height: 300)   // (400, 300): never enlarged
/// ```
public struct TargetSize: Sendable, Hashable, CustomStringConvertible {
    /// Largest allowed width in pixels (at least 1).
    public var maxWidth: Int
    /// Largest allowed height in pixels (at least 1).
    public var maxHeight: Int

    /// A box of at most `maxWidth` x `maxHeight`; leave one out to bound only the other.
    public init(maxWidth: Int = .max, maxHeight: Int = .max) {
        precondition(maxWidth > 0 && maxHeight > 0, "a target size must be positive")
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
    }

    /// The size of a `width` x `height` image scaled down (never up) to fit, aspect kept,
    /// each side at least 1.
    public func fittedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        guard width > maxWidth || height > maxHeight else {
            return (width, height)
        }
        let scale = min(Double(maxWidth) / Double(width), Double(maxHeight) / Double(height))
        let fittedWidth = min(maxWidth, max(1, Int((Double(width) * scale).rounded())))
        let fittedHeight = min(maxHeight, max(1, Int((Double(height) * scale).rounded())))
        return (fittedWidth, fittedHeight)
    }

    public var description: String {
        func side(_ value: Int) -> String { value == .max ? "any" : String(value) }
        return "\(side(maxWidth))x\(side(maxHeight))"
    }
}
