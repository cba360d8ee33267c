import Foundation
import Lanes
import LanesLists

/// Who wants previews of which URL: the requests loaded with a preview handler and the bindings that show previews.
/// A download feeds its previews only while its URL has listeners.
final class PreviewListeners: Sendable {
    struct Listener: Sendable {
        /// The box the preview is fitted into (nil: full size).
        let targetSize: TargetSize?
        let deliver: @Sendable (Bitmap) -> Void
    }

    private struct State: Sendable {
        var byURL: [String: [UInt64: Listener]] = [:]
        var nextID: UInt64 = 0
    }

    private let state = LockedValue(State())

    /// Hands `deliver` the previews of `request`'s URL, fitted to its target size, on `queue` (nil: where rendered);
    /// returns what stops that (idempotent; a preview already on its way still comes: `deliver` checks).
    func listen(
        to request: ImageRequest, on queue: WorkQueue?, _ deliver: @escaping @Sendable (Bitmap) -> Void
    ) -> @Sendable () -> Void {
        let url = request.url.absoluteString, state = self.state
        let listener = Listener(targetSize: request.targetSize) { bitmap in
            Delivery.run(on: queue, label: "image preview") { deliver(bitmap) }
        }
        let id = state.withLock { state in
            state.nextID += 1
            state.byURL[url, default: [:]][state.nextID] = listener
            return state.nextID
        }
        return {
            state.withLock { state in
                state.byURL[url]?[id] = nil
                if state.byURL[url]?.isEmpty == true { state.byURL[url] = nil }
            }
        }
    }

    func listeners(for url: String) -> [Listener] {
        state.withLock { Array(($0.byURL[url] ?? [:]).values) }
    }
}

/// Decodes a download's previews as its chunks arrive: a progressive JPEG's scans, an interlaced PNG's passes; and at
/// the end of the body, the image itself (``ArrivedImage``), so the decode stage need not decode the body again.
///
/// The decoding state is ``Owned`` by a serial lane of the feed's own: chunks are decoded in order there (never on
/// the fetcher's delivery thread), at the priority of the fetch (``setPriority(_:)``: it follows the requests that
/// wait for the download). Previews are rendered at most once per `interval` (a ``Throttler``: the first at once,
/// the latest at the end of each interval), fitted to each listener's target size and handed to every listener of
/// the URL. A JPEG is decoded at the DCT scale the listeners' sizes allow (the largest any of them needs).
///
/// The feed stops for good — it drops its decoder and the chunks still to come — when the URL has no listener left
/// (every request that wanted previews completed or was cancelled), when the image turns out not to be progressive,
/// or when its bytes do not decode. A feed whose first chunk finds no listener never starts (it cannot join a body
/// midway).
final class PreviewFeed: Sendable {
    /// The listeners of the feed's URL now.
    private let listeners: @Sendable () -> [PreviewListeners.Listener]
    private let decoding: Owned<PreviewDecoding>
    private let throttler: Throttler<Int>

    init(
        listeners: @escaping @Sendable () -> [PreviewListeners.Listener], interval: Duration, clock: any LaneClock,
        maxPixels: Int, priority: WorkPriority, counters: Counters<ImagePipelineStatistics>
    ) {
        self.listeners = listeners
        let decoding = Owned(PreviewDecoding(maxPixels: maxPixels, counters: counters), name: "image previews",
                             priority: priority)
        self.decoding = decoding
        throttler = Throttler(interval: interval, edges: .both, clock: clock, label: "previews") { _ in
            decoding.mutateThen { $0.render(for: listeners()) }
        }
    }

    /// The next chunk of the body (from the fetcher, in order).
    func take(_ chunk: Data) {
        decoding.mutate { [listeners, throttler] decoding in
            if decoding.decode(chunk, listeners: listeners()) {
                throttler.send(decoding.previewsReady)
            } else if decoding.isStopped {
                throttler.cancel()
            }
        }
    }

    /// The feed's decoding follows the fetch's priority.
    func setPriority(_ priority: WorkPriority) {
        decoding.setPriority(priority)
    }

    /// The priority the feed's decoding runs at.
    var priority: WorkPriority { decoding.priority }

    /// The body ended: no more previews. A whole body is finished on the lane, after its last chunk, and `done` is
    /// handed the image the decoder ended with (nil where it did not: not progressive, stopped, not a complete valid
    /// file), once the decoding state is released; a failed or cancelled one is handed nil at once.
    func end(complete: Bool, _ done: @escaping @Sendable (ArrivedImage?) -> Void) {
        throttler.cancel()
        guard complete else {
            decoding.mutate { $0.stop() }
            return done(nil)
        }
        decoding.mutateThen { decoding in
            let image = decoding.finish()
            return { done(image) }
        }
    }
}

/// The decoding state of a ``PreviewFeed``.
///
/// `@unchecked Sendable`: it lives in an ``Owned``, so only operations on the owner's serial lane touch it, under
/// the owner's lock.
private final class PreviewDecoding: @unchecked Sendable {
    private let maxPixels: Int
    private let counters: Counters<ImagePipelineStatistics>
    private var decoder: IncrementalDecoder?
    private var info: ImageInfo?
    /// The first bytes, until the header can be read.
    private var head = Data()
    private(set) var isStopped = false
    /// The previews ready when the last one was rendered.
    private var shown = 0

    init(maxPixels: Int, counters: Counters<ImagePipelineStatistics>) {
        self.maxPixels = maxPixels
        self.counters = counters
    }

    var previewsReady: Int { decoder?.previewsReady ?? 0 }

    /// Decodes `chunk`; true when a preview newer than the last one is ready, false when there is none (or the feed
    /// has stopped).
    func decode(_ chunk: Data, listeners: [PreviewListeners.Listener]) -> Bool {
        guard !isStopped, !listeners.isEmpty else { stop(); return false }
        do {
            if let decoder {
                try decoder.append(chunk)
            } else {
                try start(chunk, listeners: listeners)
            }
        } catch {
            stop() // not a PNG or JPEG, not progressive, or bad bytes: the decode stage decodes (and reports) it
            return false
        }
        guard let decoder else { return false }
        return decoder.previewsReady > shown
    }

    /// Gathers the first bytes until the header can be read, then makes the decoder: a JPEG at the DCT scale that
    /// covers every listener's size.
    private func start(_ chunk: Data, listeners: [PreviewListeners.Listener]) throws {
        head.append(chunk)
        let info: ImageInfo
        do {
            info = try ImageDecoder().probe(head)
        } catch ImageError.truncated {
            return
        }
        guard info.isProgressive, info.format == .png || info.format == .jpeg else {
            // A baseline JPEG or a plain PNG: its rows are final as they arrive, no previews.
            throw ImageError.unsupportedVariant(info.format, "no previews")
        }
        let denominator = listeners.map { listener in
            let target = ImageDecoder.storedTarget(info, targetSize: listener.targetSize)
            return ImageDecoder.decodeDenominator(info, target: target)
        }.min() ?? 1
        let decoder = IncrementalDecoder(previews: true, maxPixels: maxPixels, scaleDenominator: denominator)
        try decoder.append(head)
        head = Data()
        self.decoder = decoder
        self.info = info
        counters.count(\.decodes)
    }

    /// Renders the newest preview fitted to each listener's size; returns what hands them over, to run once the
    /// decoding state is released.
    func render(for targets: [PreviewListeners.Listener]) -> (@Sendable () -> Void)? {
        guard let decoder, decoder.previewsReady > shown else { return nil }
        guard !targets.isEmpty, let preview = try? decoder.preview() else { stop(); return nil }
        shown = decoder.previewsReady
        var fitted: [TargetSize?: Bitmap] = [:]
        var deliveries: [(deliver: @Sendable (Bitmap) -> Void, image: Bitmap)] = []
        for target in targets {
            guard let image = fitted[target.targetSize] ?? Self.fit(preview, in: target.targetSize) else { continue }
            fitted[target.targetSize] = image
            deliveries.append((target.deliver, image))
        }
        return { [deliveries] in for delivery in deliveries { delivery.deliver(delivery.image) } }
    }

    /// After the body's last byte: the image the decoder ends with (nil: stopped, or not a complete valid file).
    func finish() -> ArrivedImage? {
        defer { stop() }
        guard let decoder, let info else { return nil }
        do {
            try decoder.append(Data(), isLast: true)
            return ArrivedImage(bitmap: try decoder.decodeRemainingImage(), info: info,
                                scaleDenominator: decoder.scaleDenominator)
        } catch {
            return nil
        }
    }

    func stop() {
        decoder = nil
        head = Data()
        isStopped = true
    }

    private static func fit(_ bitmap: Bitmap, in size: TargetSize?) -> Bitmap? {
        guard let size else { return bitmap }
        let fitted = size.fittedSize(width: bitmap.width, height: bitmap.height)
        if fitted.width == bitmap.width && fitted.height == bitmap.height { return bitmap }
        return try? Resize(fitting: size).process(bitmap, isCancelled: { false })
    }
}
