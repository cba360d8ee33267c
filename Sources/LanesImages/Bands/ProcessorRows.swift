/// The processors that also run as row stages, and the chain of stages a list of them makes: one place that says how
/// ``Resize``, ``GaussianBlur``, ``TiltShift`` and ``Greyscale`` run in bands, used by the pipeline
/// (``ImagePipeline``'s banded chains) and by `lanes-image`'s banded writes alike. Each stage gives exactly the bytes
/// of its processor's whole-bitmap run on RGBA8 rows (``ResizeRows``, ``BlurRows``, ``GreyscaleRows``).
package enum ProcessorRows {
    /// Whether every processor of `processors` runs as a row stage (an empty list does: it is the identity).
    package static func canRun(_ processors: [any ImageProcessor]) -> Bool {
        processors.allSatisfy { $0 is any RowProcessing }
    }

    /// `source`'s RGBA8 rows through `processors`, first to last, each as its row stage (a step that changes nothing
    /// — a blur of σ 0, a resize to the same size — adds none). Throws ``ImageError/invalidArgument(_:)`` for a
    /// processor with no row stage (check ``canRun(_:)`` first). `isCancelled` is asked between bands of rows.
    package static func chain(over source: any RowSource, _ processors: [any ImageProcessor],
                              isCancelled: @escaping () -> Bool) throws -> any RowSource {
        var rows = source
        for processor in processors {
            guard let stage = processor as? any RowProcessing else {
                throw ImageError.invalidArgument("\(processor.identifier) has no row stage")
            }
            rows = try stage.rows(over: rows, isCancelled: isCancelled)
        }
        return rows
    }

    /// The size `processors` make of a `width` x `height` image (only a resize changes it).
    package static func outputSize(of processors: [any ImageProcessor], width: Int, height: Int)
        -> (width: Int, height: Int) {
        processors.reduce((width, height)) { size, processor in
            (processor as? Resize)?.outputSize(width: size.0, height: size.1) ?? size
        }
    }

    /// What the stages of `processors` hold over a `width` x `height` RGBA8 source, at most (their rings and
    /// windows, never an image): what a banded chain reserves for them besides the decoder and the result.
    package static func heldBytes(of processors: [any ImageProcessor], width: Int, height: Int) -> Int {
        var size = (width: width, height: height)
        var total = 0
        for processor in processors {
            total += (processor as? any RowProcessing)?.rowBytesHeld(width: size.width, height: size.height) ?? 0
            size = outputSize(of: [processor], width: size.width, height: size.height)
        }
        return total
    }
}

/// A processor that runs as a row stage too (see ``ProcessorRows``).
protocol RowProcessing: ImageProcessor {
    /// The stage that gives this processor's output rows from `upstream`'s RGBA8 rows.
    func rows(over upstream: any RowSource, isCancelled: @escaping () -> Bool) throws -> any RowSource
    /// The bytes that stage holds over a `width` x `height` upstream.
    func rowBytesHeld(width: Int, height: Int) -> Int
}

extension Resize: RowProcessing {
    func rows(over upstream: any RowSource, isCancelled: @escaping () -> Bool) throws -> any RowSource {
        let size = outputSize(width: upstream.width, height: upstream.height)
        guard size.width != upstream.width || size.height != upstream.height else { return upstream }
        return try ResizeRows(upstream, width: size.width, height: size.height, isCancelled: isCancelled)
    }

    func rowBytesHeld(width: Int, height: Int) -> Int {
        let size = outputSize(width: width, height: height)
        return Resampler.streamingBytes(sourceWidth: width, sourceHeight: height, width: size.width, height: size.height)
    }
}

extension GaussianBlur: RowProcessing {
    func rows(over upstream: any RowSource, isCancelled: @escaping () -> Bool) throws -> any RowSource {
        sigma > 0 ? try BlurRows(upstream, sigma: sigma, isCancelled: isCancelled) : upstream
    }

    func rowBytesHeld(width: Int, height: Int) -> Int {
        sigma > 0 ? BlurRows.heldBytes(sigma: sigma, width: width, height: height) : 0
    }
}

extension TiltShift: RowProcessing {
    func rows(over upstream: any RowSource, isCancelled: @escaping () -> Bool) throws -> any RowSource {
        try BlurRows(upstream, tiltShift: self, isCancelled: isCancelled)
    }

    func rowBytesHeld(width: Int, height: Int) -> Int {
        BlurRows.heldBytes(sigma: sigma > 0 ? sigma : 1, width: width, height: height)
    }
}

extension Greyscale: RowProcessing {
    func rows(over upstream: any RowSource, isCancelled: @escaping () -> Bool) throws -> any RowSource {
        GreyscaleRows(upstream, greyscale: self)
    }

    func rowBytesHeld(width: Int, height: Int) -> Int { 0 }
}

extension BlurRows {
    /// What a blur of `sigma` holds over a `width` x `height` upstream: its window of input rows and its rings.
    static func heldBytes(sigma: Double, width: Int, height: Int) -> Int {
        let engine = BlurEngine(kernel: GaussianKernel(sigma: sigma), width: width, height: height, opaque: false)
        let window = min(height, BlurEngine.progressBand + engine.kernel.radius + 1) * width * 4
        return window + engine.ringBytes(interleaved: true)
    }
}
