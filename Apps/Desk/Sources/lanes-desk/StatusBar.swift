import CGtk
import Foundation
import Lanes
import LanesImages

/// The bottom line: main-thread latency p99 and hitches (Lanes' responsiveness monitor), frame rate (the tick
/// callback), image and chart work in flight, cancelled, served from cache.
@MainActor
final class StatusBar {
    let label: Widget
    private var shown = ""

    init() {
        label = gtk_label_new("")
        gtk_label_set_xalign(gcast(label), 0)
        gtk_widget_set_margin_start(label, 8)
        gtk_widget_set_margin_end(label, 8)
        gtk_widget_set_margin_top(label, 2)
        gtk_widget_set_margin_bottom(label, 4)
    }

    func update(_ app: DeskApp) {
        let stats = app.monitor.snapshot()
        let now = Int64(g_get_monotonic_time())
        let p99 = Double(stats.p99.components.attoseconds) / 1e15 + Double(stats.p99.components.seconds) * 1000
        let photos = app.photos.stats
        let pipeline = app.photos.pipeline.statistics
        let charts = app.stocks.stats
        // Asleep (IdleWatch), the monitor does not ping and nothing is drawn: say so rather than count down to 0 fps.
        let rate = app.activity.isAsleep ? "idle" : "\(app.frames.framesInLastSecond(now: now)) fps"
        let text = String(
            format: "%@ · main p99 %.1f ms · hitches %d · %@ · in flight %d · cancelled %d · cached %d",
            app.options.naive ? "naive" : "lanes", p99, stats.hitches, rate,
            app.photos.inFlight + charts.inFlight, photos.rendersCancelled + charts.cancelled,
            photos.cacheHits + pipeline.memoryHits + charts.cacheHits)
        // Relabelling redraws the window: only when the text changed (an idle app then draws nothing).
        guard text != shown else { return }
        shown = text
        app.activity.expectOwnFrame()  // the repaint this asks for is not activity
        gtk_label_set_text(gcast(label), text)
    }
}
