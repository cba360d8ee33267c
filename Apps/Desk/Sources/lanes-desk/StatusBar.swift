import CGtk4
import Foundation
import Lanes
import LanesImages
import LanesLists

/// The bottom two lines: main-thread latency p99 and hitches (Lanes' responsiveness monitor), frame rate (the tick
/// callback), image and chart work in flight, cancelled, served from cache; the images' memory against its budgets
/// (the memory cache, the decodes in flight) and the shared thumbnail cache's limit on disk.
@MainActor
final class StatusBar {
    let label: Widget
    /// What the bar says now.
    private(set) var shown = ""

    init() {
        label = gtk_label_new("")
        gtk_label_set_xalign(gcast(label), 0)
        // Two lines, each cut at the window's edge: as one uncut line its width was the window's minimum, so a longer
        // line ("24 fps" after "2 fps") widened the window past the screen and moved the grid's columns. At 1024 px
        // neither line is cut (the report's `status_bar_cut`); always two, so the grid's height never changes.
        gtk_label_set_ellipsize(gcast(label), PANGO_ELLIPSIZE_END)
        gtk_widget_set_margin_start(label, 8)
        gtk_widget_set_margin_end(label, 8)
        gtk_widget_set_margin_top(label, 2)
        gtk_widget_set_margin_bottom(label, 4)
    }

    /// Shows the app's counters now (``DeskCounters``, what the report writes too).
    func update(_ app: DeskApp) {
        let text = Self.text(DeskCounters(app))
        // Relabelling redraws the window: only when the text changed (an idle app then draws nothing).
        guard text != shown else { return }
        shown = text
        app.activity.expectOwnFrame()  // the repaint this asks for is not activity
        gtk_label_set_text(gcast(label), text)
    }

    /// The bar's line for `counters`. Asleep (``IdleWatch``), the monitor does not ping and nothing is drawn: it says
    /// "idle" rather than count down to 0 fps.
    static func text(_ counters: DeskCounters) -> String {
        let mb = { (bytes: Int) in (bytes + (1 << 19)) >> 20 }
        let thumbnails = counters.thumbnailCacheLimit > 0
            ? " · thumbnails ≤ \(mb(counters.thumbnailCacheLimit)) MB" : ""
        return String(
            format: "%@ · main p99 %.1f ms · hitches %d · %@ · in flight %d · cancelled %d · cached %d"
                + "\nmemory %d/%d MB · decoding %d/%d MB%@ · blank %.1f%% (max %.0f%%)",
            counters.mode, counters.monitorP99Ms, counters.monitorHitches,
            counters.framesPerSecond.map { "\($0) fps" } ?? "idle", counters.inFlight, counters.cancelled,
            counters.cached, mb(counters.memoryCacheBytes), mb(counters.memoryCacheBudget), mb(counters.decodingBytes),
            mb(counters.decodingBudget), thumbnails, counters.blankArea.percent, counters.blankArea.maxPercent)
    }

    /// Whether the window cut a line of the bar short (an ellipsis shown): then a figure the user reads is hidden.
    var isCut: Bool {
        guard let layout = gtk_label_get_layout(gcast(label)) else { return false }
        return pango_layout_is_ellipsized(layout) != 0
    }

    /// The number after `name` in a bar's `text` ("cached 7" → 7).
    static func number(after name: String, in text: String) -> Int? {
        guard let range = text.range(of: name + " ") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }
}
