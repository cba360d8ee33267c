import Foundation

extension ImageEncoder {
    /// Pulls every row of `source` (at row 0) on the calling thread and PNG-encodes them on a second thread,
    /// band by band: while the encoder compresses one band of `bandRows` rows, the next is being decoded and
    /// processed into the other of two band buffers. So decoding, processing and encoding overlap, and nothing holds
    /// more than the stages' own rings plus two bands. The PNG has the source's layout (grey rows, from
    /// ``ConvertedRows``, make a grey PNG); opaque sources (``OpacityReporting``) are written without alpha.
    /// With `fileDescriptor` the bytes go there as they are made (it is not closed) and the result is empty;
    /// otherwise the result is the PNG. An error on either side stops both; the second thread has ended when this
    /// returns or throws.
    ///
    /// ```swift
    /// let png = try ImageEncoder().encodePNG(rowsOf: BlurRows(ImageRowDecoder(data: jpeg), sigma: 8))
    /// ```
    public func encodePNG(rowsOf source: any RowSource, compressionLevel: Int = 6, filter: PNGFilter = .adaptive,
                          fileDescriptor: Int32? = nil, bandRows: Int = 64) throws -> (data: Data, byteCount: Int) {
        try Self.requireUnread(source)
        let hasAlpha = source.layout.hasAlpha && !BlurRows.isOpaque(source)
        // Validated here, so a bad level fails before any row is read.
        let stream = try PNGStream(width: source.width, height: source.height, hasAlpha: hasAlpha, layout: source.layout,
                                   compressionLevel: compressionLevel, filter: filter, fileDescriptor: fileDescriptor)
        return try Self.encodeBands(of: source, into: stream, bandRows: bandRows, threadName: "lanes png band encoder")
    }

    /// ``encodePNG(rowsOf:compressionLevel:filter:fileDescriptor:bandRows:)`` for a JPEG: the same two threads and two
    /// bands, and the same bytes as ``encode(_:as:)`` of the whole image with the same settings (alpha flattened on
    /// `background`; grey rows make a greyscale JPEG). With `optimizedCoding: false` the encoder holds a few rows whatever the height
    /// (``JPEGStream/workingSetBytes(width:height:layout:optimizedCoding:)``); with `true` libjpeg keeps every
    /// quantised coefficient until the last row.
    ///
    /// ```swift
    /// let jpeg = try ImageEncoder().encodeJPEG(rowsOf: BlurRows(ImageRowDecoder(data: png), sigma: 8),
    ///                                          quality: 90, optimizedCoding: false)
    /// ```
    public func encodeJPEG(rowsOf source: any RowSource, quality: Int = 85, background: RGBA = .white,
                           optimizedCoding: Bool = true, fileDescriptor: Int32? = nil,
                           bandRows: Int = 64) throws -> (data: Data, byteCount: Int) {
        try Self.requireUnread(source)
        let stream = try JPEGStream(width: source.width, height: source.height, layout: source.layout, quality: quality,
                                    background: background,
                                    optimizedCoding: optimizedCoding, fileDescriptor: fileDescriptor)
        return try Self.encodeBands(of: source, into: stream, bandRows: bandRows, threadName: "lanes jpeg band encoder")
    }

    private static func requireUnread(_ source: any RowSource) throws {
        guard source.rowsRead == 0 else {
            throw ImageError.invalidArgument("the source has already handed out \(source.rowsRead) row(s)")
        }
    }

    /// The producer (this thread) and encoder (a second thread) loop every row-source encoder shares.
    static func encodeBands(of source: any RowSource, into stream: some RowEncoder, bandRows: Int,
                                    threadName: String) throws -> (data: Data, byteCount: Int) {
        let height = source.height, rowBytes = source.bytesPerRow
        let band = max(1, min(bandRows, height))
        let buffers = (0..<2).map { _ in BandBuffer(byteCount: band * rowBytes) }
        let exchange = BandExchange(free: [0, 1])
        let box = EncoderBox(stream: stream, buffers: buffers)
        let encoder = Thread {
            exchange.consumerFinished(Result {
                while let (index, rows) = exchange.nextFilled() {
                    try box.stream.write(rows: box.buffers[index].pointer, count: rows, bytesPerRow: rowBytes)
                    exchange.recycle(index)
                }
                return try box.stream.finish()
            })
        }
        encoder.name = threadName
        encoder.start()
        var y = 0
        do {
            while y < height {
                guard let index = exchange.nextFree() else { break } // the encoder failed: its error is thrown below
                let count = min(band, height - y)
                try source.readRows(count, into: buffers[index].pointer, bytesPerRow: rowBytes)
                exchange.publish(index, rows: count)
                y += count
            }
            exchange.endOfRows()
        } catch {
            exchange.endOfRows()
            _ = exchange.waitForConsumer()
            throw error
        }
        let data = try exchange.waitForConsumer().get()
        return (data, stream.byteCount)
    }
}

/// One band's bytes. `@unchecked Sendable`: written by the producer and read by the encoder thread only while the
/// ``BandExchange`` hands the buffer's index to one of them at a time (its lock orders the accesses).
private final class BandBuffer: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<UInt8>
    init(byteCount: Int) { pointer = .allocate(capacity: byteCount) }
    deinit { pointer.deallocate() }
}

/// The stream and buffers the encoder thread uses. `@unchecked Sendable`: the stream is used by the encoder thread
/// alone until `waitForConsumer()` returns, after which only the caller reads `byteCount`.
private final class EncoderBox<Stream: RowEncoder>: @unchecked Sendable {
    let stream: Stream
    let buffers: [BandBuffer]
    init(stream: Stream, buffers: [BandBuffer]) {
        self.stream = stream
        self.buffers = buffers
    }
}

/// Hands band buffers back and forth: free → filled by the producer → encoded → free again.
/// `@unchecked Sendable`: every stored property is read and written only with `condition` locked.
private final class BandExchange: @unchecked Sendable {
    private let condition = NSCondition()
    private var free: [Int]
    private var filled: [(Int, Int)] = []
    private var ended = false
    private var result: Result<Data, any Error>?

    init(free: [Int]) { self.free = free }

    /// Producer: a free buffer, or nil once the encoder has finished (it failed).
    func nextFree() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while free.isEmpty && result == nil { condition.wait() }
        return result == nil ? free.removeFirst() : nil
    }

    /// Producer: buffer `index` holds `rows` rows.
    func publish(_ index: Int, rows: Int) {
        condition.lock()
        filled.append((index, rows))
        condition.broadcast()
        condition.unlock()
    }

    /// Producer: no more rows (all sent, or the producer failed).
    func endOfRows() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    /// Encoder: the next filled buffer; nil once the producer has ended and everything sent is taken.
    func nextFilled() -> (Int, Int)? {
        condition.lock()
        defer { condition.unlock() }
        while filled.isEmpty && !ended { condition.wait() }
        return filled.isEmpty ? nil : filled.removeFirst()
    }

    /// Encoder: buffer `index` may be refilled.
    func recycle(_ index: Int) {
        condition.lock()
        free.append(index)
        condition.broadcast()
        condition.unlock()
    }

    /// Encoder: done.
    func consumerFinished(_ outcome: Result<Data, any Error>) {
        condition.lock()
        result = outcome
        condition.broadcast()
        condition.unlock()
    }

    /// Producer: waits for the encoder's outcome.
    func waitForConsumer() -> Result<Data, any Error> {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return result!
    }
}
