import Foundation

extension ImageEncoder {
    /// What `processAndEncodePNG(_:with:…)` made.
    ///
    /// ```swift
    /// let result = try ImageEncoder().processAndEncodePNG(photo, with: TiltShift())
    /// print(result.bitmap.width, result.byteCount)
    /// ```
    public struct StreamedPNG: Sendable {
        /// The processed image.
        public let bitmap: Bitmap
        /// The PNG file; empty when it was written to a file descriptor.
        public let data: Data
        /// Size of the PNG file in bytes (also when it went to a file descriptor).
        public let byteCount: Int
    }

    /// Runs `processor` on `bitmap` on the calling thread while a second thread PNG-encodes the
    /// output rows as they become final, so most of the encoding overlaps the processing. The
    /// PNG holds the processed pixels: RGB when the *input* is opaque, RGBA otherwise (so an
    /// input with alpha whose output came out opaque is still written as RGBA, where
    /// ``encode(_:as:)`` of the output would write RGB). With `fileDescriptor` the bytes are written there as they are
    /// produced (the descriptor is not closed). Once `isCancelled()` is true both stop and it
    /// throws ``ImageError/cancelled``; an encoding or write error stops the processing too
    /// and is the one thrown. The second thread has always ended when this returns or throws. `rowsEncoded(n)` is
    /// called on the encoding thread each time rows `0..<n` have gone into the PNG (for a progress display).
    ///
    /// ```swift
    /// let result = try ImageEncoder().processAndEncodePNG(photo, with: GaussianBlur(sigma: 8),
    ///                                                     compressionLevel: 6, filter: .none)
    /// try result.data.write(to: url)
    /// ```
    public func processAndEncodePNG(_ bitmap: Bitmap, with processor: some RowStreamingProcessor,
                                    compressionLevel: Int = 6, filter: PNGFilter = .adaptive,
                                    fileDescriptor: Int32? = nil,
                                    isCancelled: @Sendable () -> Bool = { false },
                                    rowsEncoded: @escaping @Sendable (Int) -> Void = { _ in }) throws -> StreamedPNG {
        guard (0...9).contains(compressionLevel) else {
            throw ImageError.invalidArgument("PNG compression level \(compressionLevel) is not 0...9")
        }
        guard bitmap.layout == .rgba8 else {
            // Other layouts are processed whole (through RGBA8, see processedAsRGBA8), then streamed out in theirs.
            return try Self.processThenEncodePNG(bitmap, with: processor, compressionLevel: compressionLevel,
                                                 filter: filter, fileDescriptor: fileDescriptor, isCancelled: isCancelled,
                                                 rowsEncoded: rowsEncoded)
        }
        let hasAlpha = bitmap.withUnsafePixels { !BlurEngine.isOpaque($0.baseAddress!, count: bitmap.pixelCount) }
        let handoff = RowHandoff()
        let width = bitmap.width, height = bitmap.height
        var encoded: Result<(Data, Int), any Error> = .failure(ImageError.cancelled)
        let output = try Bitmap(width: width, height: height) { destination in
            let rows = SharedRows(base: UnsafePointer(destination.baseAddress!))
            let encoder = Thread {
                handoff.consumerFinished(Self.encodeRows(rows, width: width, height: height, hasAlpha: hasAlpha,
                                                         level: compressionLevel, filter: filter,
                                                         fileDescriptor: fileDescriptor, handoff: handoff,
                                                         rowsEncoded: rowsEncoded))
            }
            encoder.name = "lanes png encoder"
            encoder.start()
            do {
                try processor.process(bitmap, into: destination, isCancelled: { handoff.consumerFailed || isCancelled() },
                                      rowsCompleted: handoff.publish)
                handoff.publish(height) // the contract's last call, in case a processor forgot it
            } catch {
                handoff.stop()
                // Wait until the encoder no longer reads `destination`; its error explains a stop it caused.
                if case .failure(let encoderError) = handoff.waitForConsumer(),
                   (encoderError as? ImageError) != .cancelled {
                    throw encoderError
                }
                throw error
            }
            encoded = handoff.waitForConsumer()
        }
        let (data, byteCount) = try encoded.get()
        return StreamedPNG(bitmap: output, data: data, byteCount: byteCount)
    }

    /// ``processAndEncodePNG(_:with:compressionLevel:filter:fileDescriptor:isCancelled:)`` for a bitmap that is not
    /// RGBA8: no overlap, the output keeps the input's channels (and alpha only when the input has any).
    private static func processThenEncodePNG(_ bitmap: Bitmap, with processor: some RowStreamingProcessor,
                                             compressionLevel: Int, filter: PNGFilter, fileDescriptor: Int32?,
                                             isCancelled: @Sendable () -> Bool,
                                             rowsEncoded: @Sendable (Int) -> Void) throws -> StreamedPNG {
        let output = try processor.process(bitmap, isCancelled: isCancelled)
        let stream = try PNGStream(width: output.width, height: output.height, hasAlpha: output.layout.hasAlpha,
                                   layout: output.layout, compressionLevel: compressionLevel, filter: filter,
                                   fileDescriptor: fileDescriptor)
        for start in stride(from: 0, to: output.height, by: 64) {
            try stream.write(rows: start..<min(start + 64, output.height), of: output)
            rowsEncoded(min(start + 64, output.height))
        }
        let data = try stream.finish()
        return StreamedPNG(bitmap: output, data: data, byteCount: stream.byteCount)
    }

    /// The encoder thread's work: rows go to a ``PNGStream`` as `handoff` publishes them.
    private static func encodeRows(_ rows: SharedRows, width: Int, height: Int, hasAlpha: Bool, level: Int,
                                   filter: PNGFilter, fileDescriptor: Int32?, handoff: RowHandoff,
                                   rowsEncoded: @Sendable (Int) -> Void) -> Result<(Data, Int), any Error> {
        Result {
            let stream = try PNGStream(width: width, height: height, hasAlpha: hasAlpha, compressionLevel: level,
                                       filter: filter, fileDescriptor: fileDescriptor)
            var done = 0
            while done < height {
                guard let ready = handoff.waitForRows(after: done) else { throw ImageError.cancelled }
                try stream.write(rows: rows.base + done * width * 4, count: ready - done)
                done = ready
                rowsEncoded(done)
            }
            let data = try stream.finish()
            return (data, stream.byteCount)
        }
    }
}

/// The processed image's bytes, read by the encoder thread only below the rows published as final.
/// `@unchecked Sendable`: a pointer; `RowHandoff`'s lock orders every read after the writes it
/// reads, and `processAndEncodePNG` joins the reader before the memory goes away.
private struct SharedRows: @unchecked Sendable {
    let base: UnsafePointer<UInt8>
}

/// Hands "rows 0..<n are final" from the processing thread to the encoder thread.
/// `@unchecked Sendable`: every stored property is read and written only with `condition` locked.
private final class RowHandoff: @unchecked Sendable {
    private let condition = NSCondition()
    private var ready = 0
    private var stopped = false
    private var failed = false
    private var result: Result<(Data, Int), any Error>?

    /// Producer: rows `0..<n` are final.
    func publish(_ n: Int) {
        condition.lock()
        ready = n
        condition.broadcast()
        condition.unlock()
    }

    /// Producer: no more rows will come (the processing failed or was cancelled).
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Consumer: blocks until more than `have` rows are final; nil once stopped.
    func waitForRows(after have: Int) -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while ready <= have && !stopped {
            condition.wait()
        }
        return stopped ? nil : ready
    }

    /// Consumer: done, with the PNG or the reason it failed.
    func consumerFinished(_ outcome: Result<(Data, Int), any Error>) {
        condition.lock()
        result = outcome
        if case .failure = outcome { failed = true }
        condition.broadcast()
        condition.unlock()
    }

    /// Whether the consumer failed (the producer should stop).
    var consumerFailed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return failed
    }

    /// Producer: blocks until the consumer has finished; its outcome.
    func waitForConsumer() -> Result<(Data, Int), any Error> {
        condition.lock()
        defer { condition.unlock() }
        while result == nil {
            condition.wait()
        }
        return result!
    }
}
