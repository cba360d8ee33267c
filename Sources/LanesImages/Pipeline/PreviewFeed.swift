import Dispatch
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

    /// Adds `listener` for `url`; returns what ``remove(_:url:)`` takes.
    func add(_ listener: Listener, url: String) -> UInt64 {
        state.withLock { state in
            state.nextID += 1
            state.byURL[url, default: [:]][state.nextID] = listener
            return state.nextID
        }
    }

    func remove(_ id: UInt64, url: String) {
        state.withLock { state in
            state.byURL[url]?[id] = nil
            if state.byURL[url]?.isEmpty == true { state.byURL[url] = nil }
        }
    }

    func listeners(for url: String) -> [Listener] {
        state.withLock { Array(($0.byURL[url] ?? [:]).values) }
    }
}

/// Decodes a download's previews as its chunks arrive: a progressive JPEG's scans, an interlaced PNG's passes. The
/// chunks are decoded on a serial queue of the feed's own (never on the fetcher's delivery queue); previews are
/// rendered at most once per `interval` (a ``Throttler``: the first at once, the latest at the end of each interval),
/// fitted to each listener's target size and handed to every listener of the URL.
///
/// The feed stops for good — it drops its decoder and the chunks still to come — when the body ends, when the URL
/// has no listener left (every request that wanted previews completed or was cancelled), when the image turns out
/// not to be progressive, or when its bytes do not decode. A feed whose first chunk finds no listener never starts
/// (it cannot join a body midway).
final class PreviewFeed: Sendable {
    private let url: String
    private let listeners: PreviewListeners
    private let queue: DispatchQueue
    private let decoding: Confined
    private let throttler: Throttler<Int>

    init(url: String, listeners: PreviewListeners, interval: Duration, clock: any LaneClock, maxPixels: Int) {
        self.url = url
        self.listeners = listeners
        let queue = DispatchQueue(label: "lanes.previews")
        self.queue = queue
        let decoding = Confined(maxPixels: maxPixels)
        self.decoding = decoding
        throttler = Throttler(interval: interval, edges: .both, clock: clock, label: "previews") { _ in
            queue.async { decoding.renderAndDeliver(url: url, to: listeners) }
        }
    }

    /// The next chunk of the body (from the fetcher, in order).
    func take(_ chunk: Data) {
        queue.async { [self] in
            if decoding.decode(chunk, hasListeners: !listeners.listeners(for: url).isEmpty) {
                throttler.send(decoding.previewsReady)
            } else {
                throttler.cancel()
            }
        }
    }

    /// The body ended (or failed, or was cancelled): no more previews.
    func end() {
        throttler.cancel()
        queue.async { [decoding] in decoding.stop() }
    }
}

/// The decoding state of a ``PreviewFeed``.
///
/// `@unchecked Sendable`: every property is read and written only on the feed's serial queue (`take`, `end` and
/// the throttler's handler all hop onto it), so no two threads touch it at once.
private final class Confined: @unchecked Sendable {
    private let maxPixels: Int
    private var decoder: IncrementalDecoder?
    private var started = false
    /// The previews ready when the last one was rendered.
    private var shown = 0

    init(maxPixels: Int) {
        self.maxPixels = maxPixels
    }

    var previewsReady: Int { decoder?.previewsReady ?? 0 }

    /// Decodes `chunk`; true when a preview newer than the last one is ready, false when there is none (or the feed
    /// has stopped).
    func decode(_ chunk: Data, hasListeners: Bool) -> Bool {
        if !started {
            started = true
            if hasListeners { decoder = IncrementalDecoder(previews: true, maxPixels: maxPixels) }
        }
        guard let decoder, hasListeners else { stop(); return false }
        do {
            try decoder.append(chunk)
        } catch {
            stop() // not a PNG or JPEG, or bad bytes: the final decode reports it
            return false
        }
        if decoder.hasHeader && !decoder.isProgressive {
            stop() // a baseline JPEG or a plain PNG: its rows are final as they arrive, no previews
            return false
        }
        return decoder.previewsReady > shown
    }

    func renderAndDeliver(url: String, to listeners: PreviewListeners) {
        guard let decoder, decoder.previewsReady > shown else { return }
        let targets = listeners.listeners(for: url)
        guard !targets.isEmpty, let preview = try? decoder.preview() else { return stop() }
        shown = decoder.previewsReady
        var fitted: [TargetSize?: Bitmap] = [:]
        for target in targets {
            guard let image = fitted[target.targetSize] ?? Self.fit(preview, in: target.targetSize) else { continue }
            fitted[target.targetSize] = image
            target.deliver(image)
        }
    }

    func stop() {
        decoder = nil
        started = true
    }

    private static func fit(_ bitmap: Bitmap, in size: TargetSize?) -> Bitmap? {
        guard let size else { return bitmap }
        let fitted = size.fittedSize(width: bitmap.width, height: bitmap.height)
        if fitted.width == bitmap.width && fitted.height == bitmap.height { return bitmap }
        return try? Resize(fitting: size).process(bitmap, isCancelled: { false })
    }
}
