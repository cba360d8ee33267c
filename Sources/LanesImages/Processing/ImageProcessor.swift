/// A pure bitmap-to-bitmap transformation, such as ``Resize`` or ``GaussianBlur``.
///
/// `identifier` names the transformation *with its parameters* and is stable across runs, so a
/// result can be cached and shared under `source key + identifier`. `process` checks
/// `isCancelled()` between bands of rows and throws ``ImageError/cancelled`` when it returns true.
///
/// ```swift
/// struct Invert: ImageProcessor {
///     var identifier: String { "invert" }
///     func process(_ bitmap: Bitmap, isCancelled: @Sendable () -> Bool) throws -> Bitmap {
///         if isCancelled() { throw ImageError.cancelled }
///         var out = bitmap
///         out.withUnsafeMutablePixels { p in
///             for i in stride(from: 0, to: p.count, by: 4) { p[i] = 255 - p[i]; p[i+1] = 255 - p[i+1]; p[i+2] = 255 - p[i+2] }
///         }
///         return out
///     }
/// }
/// ```
public protocol ImageProcessor: Sendable {
    /// A stable name including every parameter, e.g. `gaussianBlur(sigma=8.0)`.
    var identifier: String { get }

    /// The processed bitmap. Throws ``ImageError/cancelled`` once `isCancelled()` is true.
    func process(_ bitmap: Bitmap, isCancelled: @Sendable () -> Bool) throws -> Bitmap

    /// The bytes `process` holds for `bitmap` at its peak, besides the input: what a pipeline reserves from its
    /// ``MemoryBudget`` before running it. The default is one output of the input's size.
    ///
    /// ```swift
    /// GaussianBlur(sigma: 8).workingSetBytes(for: photo)   // the output plus the blur's rings
    /// ```
    func workingSetBytes(for bitmap: Bitmap) -> Int
}

extension ImageProcessor {
    /// One output of the input's size.
    public func workingSetBytes(for bitmap: Bitmap) -> Int { bitmap.byteCount }
}

extension ImageProcessor {
    /// The processed bitmap, without cancellation.
    ///
    /// ```swift
    /// let small = try Resize(width: 100).process(photo)
    /// ```
    public func process(_ bitmap: Bitmap) throws -> Bitmap {
        try process(bitmap, isCancelled: { false })
    }
}

/// Several processors applied in order, as one processor whose identifier combines theirs.
///
/// ```swift
/// let chain = ProcessorChain(Resize(width: 800), TiltShift(), Greyscale())
/// chain.identifier   // "resize(width=800,height=auto)|tiltShift(...)|greyscale(rec601)"
/// let result = try chain.process(photo)
/// ```
public struct ProcessorChain: ImageProcessor {
    /// The processors, applied first to last.
    public let processors: [any ImageProcessor]

    /// A chain of `processors` (an empty chain returns its input).
    public init(_ processors: [any ImageProcessor]) {
        self.processors = processors
    }

    /// A chain of `processors`.
    public init(_ processors: any ImageProcessor...) {
        self.init(processors)
    }

    /// The processors' identifiers joined by `|` (`identity` when empty).
    public var identifier: String {
        processors.isEmpty ? "identity" : processors.map(\.identifier).joined(separator: "|")
    }

    /// This chain followed by `next`.
    public func appending(_ next: any ImageProcessor) -> ProcessorChain {
        ProcessorChain(processors + [next])
    }

    /// Each step's working set, plus the intermediate bitmap it reads (evaluated at the input's size: an
    /// upper bound when an earlier step shrinks the image).
    public func workingSetBytes(for bitmap: Bitmap) -> Int {
        processors.enumerated().map { index, processor in
            processor.workingSetBytes(for: bitmap) + (index > 0 ? bitmap.byteCount : 0)
        }.max() ?? 0
    }

    public func process(_ bitmap: Bitmap, isCancelled: @Sendable () -> Bool) throws -> Bitmap {
        if isCancelled() { throw ImageError.cancelled }
        var current = bitmap
        for processor in processors {
            current = try processor.process(current, isCancelled: isCancelled)
        }
        return current
    }
}

/// Formats a parameter for an identifier: fixed, locale-independent, shortest round-trip form.
func identifierNumber(_ value: Double) -> String {
    value.description
}
