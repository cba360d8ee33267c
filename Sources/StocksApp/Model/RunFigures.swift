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
            hitch rate           \(r.hitchRateText) ms/s (\(r.hitchRateBand): good < 5, fair 5–10, poor > 10) over \(seconds(r.activeTime)) s · hangs (>250 ms) \(r.hangs)
            row charts           started \(rendersStarted) · completed \(rendersCompleted) · cancelled \(rendersCancelled) · cache hits \(cacheHits) · cached \(cached)
            screens cancelled    \(screenCancels) (category loads / analyses left before they finished)
            wrong-row deliveries \(wrongCellDeliveries)
            frames drawn         \(frames)
            """
    }

    private func seconds(_ duration: Duration) -> String {
        let tenths = (duration.components.seconds * 10 + duration.components.attoseconds / 100_000_000_000_000_000)
        return "\(tenths / 10).\(tenths % 10)"
    }

    private func ms(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let tenths = (seconds * 100_000 + attoseconds / 10_000_000_000_000 + 5) / 10
        return "\(tenths / 10).\(tenths % 10)"
    }
}
