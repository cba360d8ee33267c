import CGtk4
import Lanes
import LanesImages
import LanesLists

/// The app's counters at one moment, from one place: the status bar shows them and the report writes them, so the
/// two can never disagree about the same moment.
///
/// ```swift
/// let counters = DeskCounters(app)
/// print(counters.cached, counters.inFlight)
/// ```
@MainActor
struct DeskCounters: Equatable {
    /// "lanes" or "naive".
    let mode: String
    /// The status bar's responsiveness monitor: main-thread latency p99 (ms) and hitches.
    let monitorP99Ms: Double
    let monitorHitches: Int
    /// The same monitor's hitch rate (ms of hitch per second of activity, Apple's bands) and hangs (stalls > 250 ms).
    let monitorHitchRate: Double
    let monitorHangs: Int
    /// Frames drawn in the last second, or nil while the idle watch sleeps (nothing is drawn).
    let framesPerSecond: Int?
    /// Image stages and charts in flight, renders withdrawn before they finished, results served from a cache.
    let inFlight: Int
    let cancelled: Int
    let cached: Int
    /// The memory the images may take and what they take now (bytes): the memory cache of shown thumbnails, the
    /// decodes in flight (the pipeline's memory budget), and the shared thumbnail cache's limit on disk (0: none).
    let memoryCacheBytes: Int
    let memoryCacheBudget: Int
    let decodingBytes: Int
    let decodingBudget: Int
    let thumbnailCacheLimit: Int
    /// The photo grid's blank area since the app started or the fling script reset it (``PhotosPage/blankArea``).
    let blankArea: BlankArea.Figures

    init(_ app: DeskApp) {
        let stats = app.monitor.snapshot()
        let photos = app.photos.stats, pipeline = app.photos.pipeline.statistics, charts = app.stocks.stats
        mode = app.options.naive ? "naive" : "lanes"
        monitorP99Ms = Scripts.milliseconds(stats.p99)
        monitorHitches = stats.hitches
        monitorHitchRate = stats.hitchRate
        monitorHangs = stats.hangs
        framesPerSecond = app.activity.isAsleep
            ? nil : app.frames.framesInLastSecond(now: Int64(g_get_monotonic_time()))
        inFlight = app.photos.inFlight + charts.inFlight
        cancelled = photos.rendersCancelled + charts.cancelled
        cached = photos.cacheHits + pipeline.loads.cacheHits + charts.cacheHits
        let images = app.photos.pipeline
        memoryCacheBytes = images.memoryCacheCost
        memoryCacheBudget = images.configuration.memoryCacheLimit
        decodingBytes = images.budget?.inUse ?? 0
        decodingBudget = images.configuration.decodedBytesLimit
        thumbnailCacheLimit = images.configuration.thumbnailCache?.sizeLimit ?? 0
        blankArea = app.photos.blankArea.figures(lastFrameLasting: 1.0 / 60)
    }
}
