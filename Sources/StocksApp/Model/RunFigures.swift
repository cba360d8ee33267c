import Lanes

/// The figures of a run: main-queue responsiveness and the row-chart loader's work. Shown in the status line and
/// printed at the end of `--script` / `--demo`.
///
/// ```swift
/// print(app.figures.report)
/// ```
struct RunFigures: Sendable, Equatable {
    var mode: AppMode
    var responsiveness: ResponsivenessStats
    var rendersStarted: Int
    var rendersCompleted: Int
    var rendersCancelled: Int
    var cacheHits: Int
    var cached: Int
    var inFlight: Int
    /// Category loads and detail analyses cancelled by leaving their screen.
    var screenCancels: Int
    var wrongCellDeliveries: Int
    var frames: Int

    /// A multi-line report.
    var report: String {
        let r = responsiveness
        return """
            mode                 \(mode.rawValue)
            main-queue latency   p50 \(ms(r.p50)) ms · p99 \(ms(r.p99)) ms · max \(ms(r.max)) ms (\(r.samples) pings)
            hitches (>16 ms)     \(r.hitches)
            row charts           started \(rendersStarted) · completed \(rendersCompleted) · cancelled \(rendersCancelled) · cache hits \(cacheHits) · cached \(cached)
            screens cancelled    \(screenCancels) (category loads / analyses left before they finished)
            wrong-row deliveries \(wrongCellDeliveries)
            frames drawn         \(frames)
            """
    }

    private func ms(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let tenths = (seconds * 100_000 + attoseconds / 10_000_000_000_000 + 5) / 10
        return "\(tenths / 10).\(tenths % 10)"
    }
}
