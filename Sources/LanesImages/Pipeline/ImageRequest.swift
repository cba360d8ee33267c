import Foundation

/// What to load: a URL (`file://`, `http://`, `https://`), the size to fit it in, and the processors to run on it.
///
/// Two requests are equal when they name the same URL, size and processor chain (by ``ImageProcessor/identifier``),
/// so equal requests share every stage of the pipeline and one cache entry.
///
/// ```swift
/// let request = ImageRequest(url: URL(string: "https://example.com/photo.jpg")!,
///                            targetSize: TargetSize(maxWidth: 800),
///                            processors: [TiltShift()])
/// ```
public struct ImageRequest: Sendable, Hashable, CustomStringConvertible {
    /// Where the encoded image is.
    public var url: URL
    /// The box to decode into (nil: full size). JPEGs decode at a reduced DCT scale when it allows.
    public var targetSize: TargetSize?
    /// The processors applied, first to last, after decoding.
    public var processors: [any ImageProcessor]

    /// A request for `url`, decoded to fit `targetSize`, then run through `processors`.
    ///
    /// ```swift
    /// let thumbnail = ImageRequest(url: fileURL, targetSize: TargetSize(maxWidth: 128, maxHeight: 128))
    /// ```
    public init(url: URL, targetSize: TargetSize? = nil, processors: [any ImageProcessor] = []) {
        self.url = url
        self.targetSize = targetSize
        self.processors = processors
    }

    /// The processor chain's identifier (empty when there are no processors).
    public var processorIdentifier: String {
        processors.isEmpty ? "" : ProcessorChain(processors).identifier
    }

    public static func == (lhs: ImageRequest, rhs: ImageRequest) -> Bool {
        lhs.url == rhs.url && lhs.targetSize == rhs.targetSize && lhs.processorIdentifier == rhs.processorIdentifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(url)
        hasher.combine(targetSize)
        hasher.combine(processorIdentifier)
    }

    public var description: String {
        var text = url.absoluteString
        if let targetSize { text += " @" + targetSize.description }
        if !processors.isEmpty { text += " | " + processorIdentifier }
        return text
    }

    /// The key of the stage whose result answers this request.
    var finalKey: StageKey {
        processors.isEmpty
            ? .decode(url: url.absoluteString, size: targetSize)
            : .process(url: url.absoluteString, size: targetSize, processors: processorIdentifier)
    }
}
