import Foundation
import Lanes

/// The rows of an image as it downloads: a ``RowSource`` over an ``IncrementalDecoder`` fed by a fetch's chunks
/// (``DataFetching/fetch(_:priority:chunks:completion:)``), so a URL input is decoded and processed in bands like a
/// file, holding neither the body nor the decoded image. A read that needs rows whose bytes have not arrived blocks
/// the calling thread until they do (run it where a file read would run: a work item, never the main thread).
///
/// A PNG or JPEG only (``info`` is read from the first bytes before anything is decoded; other formats throw
/// ``ImageError/unsupportedVariant(_:_:)`` from the initializer). What it holds (``retainedBytes``): the decoder's
/// (a few rows, a progressive JPEG's coefficients, an interlaced PNG's image) and the chunks not decoded yet.
/// Deinitialising it cancels the fetch. The read of the last row returns only once the body has ended, and throws
/// the fetch's error if it ended short (``FetchError/shortBody(url:received:expected:)``). A read never waits on the fetch's own deadlines alone: cancelling the work
/// item it runs in (`context`) cancels the fetch and wakes it at once (``ImageError/cancelled``), and a wait for
/// bytes longer than `stallLimit` ends it (``FetchError/timedOut(url:)``).
///
/// ```swift
/// let rows = try StreamedRows(url: photoURL, fetcher: DataFetcher())
/// let small = try Bitmap(readingAllRowsOf: ResizeRows(rows, width: rows.width / 4, height: rows.height / 4))
/// ```
public final class StreamedRows: RowSource, OpacityReporting {
    /// The header: format, stored size, orientation.
    public let info: ImageInfo
    public var width: Int { decoder.width }
    public var height: Int { decoder.height }
    public var layout: PixelLayout { .rgba8 }
    public var rowsRead: Int { decoder.rowsRead }
    public var retainedBytes: Int { decoder.retainedBytes + pipe.waitingBytes + current.count }
    public var isOpaque: Bool { decoder.isOpaque }

    private let decoder: IncrementalDecoder
    private let download: StreamedDownload
    private var pipe: ChunkPipe { download.pipe }
    /// The rest of the chunk being decoded, handed to the decoder a slice at a time (its own copy stays small).
    private var current: Data
    /// The pipe's end has been taken.
    private var bodyEnded: Bool
    private static let sliceBytes = 64 << 10

    /// Starts fetching `url` and waits (blocking) until its header has arrived. `scaleDenominator` picks a JPEG's
    /// DCT scale (1, 2, 4 or 8) from the header; headers over `maxPixels` are refused before any allocation.
    /// `context`: the work item the rows are read in; cancelling it cancels the fetch and wakes a waiting read, and
    /// the fetch follows its priority. A wait for the next bytes longer than `stallLimit` on `clock` (nil: none)
    /// fails.
    ///
    /// ```swift
    /// queue.add(label: "thumbnail") { context in
    ///     let rows = try StreamedRows(url: url, fetcher: fetcher, context: context, scaleDenominator: { _ in 2 })
    ///     return try Bitmap(readingAllRowsOf: rows)
    /// }
    /// ```
    public convenience init(url: URL, fetcher: any DataFetching, priority: WorkPriority = .normal,
                            maxPixels: Int = ImageDecoder.defaultMaxPixels, context: WorkContext? = nil,
                            stallLimit: Duration? = .seconds(30), clock: any LaneClock = SystemLaneClock(),
                            scaleDenominator: (ImageInfo) -> Int = { _ in 1 }) throws {
        let download = try StreamedDownload(url: url, fetcher: fetcher, priority: priority, maxPixels: maxPixels,
                                            context: context, stallLimit: stallLimit, clock: clock)
        try self.init(download, maxPixels: maxPixels, scaleDenominator: scaleDenominator(download.info))
    }

    /// The rows of `download`, whose header has arrived (a PNG or JPEG: others throw
    /// ``ImageError/unsupportedVariant(_:_:)``), a JPEG at 1/`scaleDenominator`. The download is the rows' from here on.
    package init(_ download: StreamedDownload, maxPixels: Int = ImageDecoder.defaultMaxPixels,
                 scaleDenominator: Int = 1) throws {
        let header = download.info
        guard header.format == .png || header.format == .jpeg else {
            throw ImageError.unsupportedVariant(header.format, "decoded whole (only PNG and JPEG stream in rows)")
        }
        info = header
        self.download = download
        decoder = IncrementalDecoder(previews: false, maxPixels: maxPixels,
                                     scaleDenominator: header.format == .jpeg ? scaleDenominator : 1)
        (current, bodyEnded) = download.takeHead()
        while !decoder.hasHeader { try feedNext() } // a throw here deinitialises: the fetch is cancelled
    }

    /// Hands the decoder its next slice of input (waiting for a chunk when none is left), or the end of the body.
    private func feedNext() throws {
        if current.isEmpty && !bodyEnded {
            switch try pipe.next() {
            case .chunk(let chunk): current = chunk
            case .end: bodyEnded = true
            }
        }
        guard !current.isEmpty else { return try decoder.append(Data(), isLast: true) }
        let slice = current.prefix(Self.sliceBytes)
        current = current.count > slice.count ? current.dropFirst(slice.count) : Data()
        try decoder.append(slice, isLast: bodyEnded && current.isEmpty)
    }

    public func readRows(_ count: Int, into destination: UnsafeMutableRawPointer, bytesPerRow: Int) throws {
        try checkRead(count, bytesPerRow: bytesPerRow)
        var done = 0
        while done < count {
            let got = try decoder.readRows(count - done, into: destination + done * bytesPerRow, bytesPerRow: bytesPerRow)
            done += got
            if got == 0 { try feedNext() }
        }
        if decoder.rowsRead == height { try awaitBodyEnd() }
    }

    /// After the last row: the transfer must still end well. An image can be whole before its body is (a server
    /// that announced more bytes than it sent, a chunked body with no last chunk): the fetch's failure is the read's,
    /// so a download cut short is never written out as if it had arrived. Bytes after the image are not decoded.
    private func awaitBodyEnd() throws {
        current = Data()
        while !bodyEnded {
            switch try pipe.next() {
            case .chunk: continue
            case .end: bodyEnded = true
            }
        }
    }
}

/// A download whose header has arrived: what ``StreamedRows`` reads its rows from, or, when the header rules bands
/// out (an Exif orientation, a 16-bit file with no step that makes it 8-bit, a format whose library reads no rows),
/// the whole body from the bytes already fetched (``wholeBody()``) rather than a second fetch. Deinitialising it
/// cancels the fetch.
///
/// ```swift
/// let download = try StreamedDownload(url: url, fetcher: fetcher)
/// let image = download.info.orientation == .up ? try Bitmap(readingAllRowsOf: StreamedRows(download))
///                                               : try ImageDecoder().decode(download.wholeBody())
/// ```
package final class StreamedDownload {
    /// The header: format, stored size, orientation.
    package let info: ImageInfo
    fileprivate let pipe: ChunkPipe
    private let handle: any FetchHandle
    /// The bytes taken from the pipe so far (until ``takeHead()`` or ``wholeBody()``).
    private var head: Data
    /// The pipe's end has been taken.
    private var ended: Bool

    /// Starts fetching `url` and waits (blocking) until its header has arrived; headers over `maxPixels` are refused
    /// before any allocation. `context`, `stallLimit` and `clock` as for ``StreamedRows``.
    package init(url: URL, fetcher: any DataFetching, priority: WorkPriority = .normal,
                 maxPixels: Int = ImageDecoder.defaultMaxPixels, context: WorkContext? = nil,
                 stallLimit: Duration? = .seconds(30), clock: any LaneClock = SystemLaneClock()) throws {
        let pipe = ChunkPipe(stall: stallLimit.map { (limit: $0, clock: clock) }, url: url.absoluteString)
        self.pipe = pipe
        let startedAt = context?.priority ?? priority
        let handle = fetcher.fetch(url, priority: startedAt, chunks: { pipe.push($0) }) { pipe.end($0) }
        self.handle = handle
        context?.onPriorityChange(since: startedAt) { handle.setPriority($0) }
        context?.onCancel {
            handle.cancel()
            pipe.end(.failure(.cancelled))
        }
        var head = Data()
        var ended = false
        do {
            var probed: ImageInfo?
            while probed == nil {
                guard !ended else { throw ImageError.truncated }
                switch try pipe.next() {
                case .chunk(let chunk): head.append(chunk)
                case .end: ended = true
                }
                do {
                    probed = try head.withUnsafeBytes { try CodecBridge.probe($0) }
                } catch ImageError.truncated where !ended {
                    continue
                }
            }
            let header = probed!
            guard let pixels = header.pixelCount, pixels <= maxPixels else {
                throw ImageError.tooLarge(width: header.width, height: header.height, limit: maxPixels)
            }
            info = header
        } catch {
            handle.cancel()
            throw error
        }
        self.head = head
        self.ended = ended
    }

    deinit {
        handle.cancel()
    }

    /// The bytes taken so far and whether the body's end was among them; the download keeps none of them.
    fileprivate func takeHead() -> (Data, Bool) {
        defer { head = Data() }
        return (head, ended)
    }

    /// The whole body: the bytes already fetched and the rest as it arrives (waits for the end). Throws the fetch's
    /// error when it ends short.
    package func wholeBody() throws -> Data {
        var body = head
        head = Data()
        while !ended {
            switch try pipe.next() {
            case .chunk(let chunk): body.append(chunk)
            case .end: ended = true
            }
        }
        return body
    }
}

/// The chunks of a fetch on their way from the fetcher's thread to the reader's: a lock-guarded queue the reader
/// waits on. The end of the body, its failure, a cancellation or a stall (no chunk for the stall limit while the reader
/// waits) wakes the reader.
private final class ChunkPipe: Sendable {
    enum Next {
        case chunk(Data)
        /// The body ended (every chunk was taken).
        case end
    }

    private struct State: Sendable {
        var chunks: [Data] = []
        var waitingBytes = 0
        var ending: Result<Void, FetchError>?
        var endTaken = false
        /// The alarm of the reader's wait, and its number (a late alarm of an earlier wait does nothing).
        var alarm: ScheduledToken?
        var alarms: UInt64 = 0
    }

    private let stall: (limit: Duration, clock: any LaneClock)?
    private let url: String
    private let state = ConditionGuarded(State())

    init(stall: (limit: Duration, clock: any LaneClock)?, url: String) {
        self.stall = stall
        self.url = url
    }

    var waitingBytes: Int { state.withLock { $0.waitingBytes } }

    func push(_ chunk: Data) {
        let alarm = state.withLock { state in
            state.chunks.append(chunk)
            state.waitingBytes += chunk.count
            defer { state.alarm = nil }
            return state.alarm
        }
        alarm?.cancel()
    }

    /// The body ended, failed, or was cancelled (the first ending counts).
    func end(_ result: Result<Void, FetchError>) {
        let alarm = state.withLock { state in
            if state.ending == nil { state.ending = result }
            defer { state.alarm = nil }
            return state.alarm
        }
        alarm?.cancel()
    }

    /// The next chunk, or the end; waits for one. Throws the fetch's error (``ImageError/cancelled`` when it was
    /// cancelled).
    func next() throws -> Next {
        try state.wait { state -> Next? in
            if !state.chunks.isEmpty {
                let chunk = state.chunks.removeFirst()
                state.waitingBytes -= chunk.count
                return .chunk(chunk)
            }
            switch state.ending {
            case .success?:
                guard !state.endTaken else { throw ImageError.truncated }
                state.endTaken = true
                return .end
            case .failure(.cancelled)?:
                throw ImageError.cancelled
            case .failure(let error)?:
                throw error
            case nil:
                armStallAlarm(&state)
                return nil
            }
        }
    }

    /// Under the lock, before the reader waits: the alarm that ends the wait after the stall limit (one per wait).
    private func armStallAlarm(_ state: inout State) {
        guard let stall, state.alarm == nil else { return }
        state.alarms += 1
        let number = state.alarms
        // The clock never calls back before `schedule` returns, so the lock is not taken twice.
        state.alarm = stall.clock.schedule(at: stall.clock.deadline(after: stall.limit), leeway: 0) { [self] in
            self.state.withLock { state in
                guard state.alarms == number, state.alarm != nil, state.ending == nil else { return }
                state.ending = .failure(.timedOut(url: url))
                state.alarm = nil
            }
        }
    }
}
