import CGtk4
import Foundation
import LanesAppSupport
import LanesImages
import LanesLists

/// The `--report FILE` JSON: one object, the script's figures first, then the app's counters.
@MainActor
enum Report {
    static func write(_ app: DeskApp, to path: String) throws {
        var fields = app.report
        func add(_ key: String, _ value: Double) {
            if !fields.contains(where: { $0.0 == key }) { fields.append((key, .number(value))) }
        }
        let photos = app.photos.stats, pipeline = app.photos.pipeline.statistics, charts = app.stocks.stats
        // What the status bar shows, from the same source (the bar is refreshed with it just before).
        let counters = DeskCounters(app)
        fields.append(("mode", .text(counters.mode)))
        fields.append(("status_bar", .text(app.status.shown)))
        fields.append(("renderer", .text(Screenshot.rendererName(app.window))))
        fields.append(("load_average", .text(loadAverage())))
        add("cores", Double(ProcessInfo.processInfo.activeProcessorCount))
        add("window_width_asked", Double(app.options.width))
        add("window_width_max", Double(app.widestWindow))
        add("status_bar_cut", app.statusWasCut ? 1 : 0)
        add("wrong_row_deliveries", Double(photos.wrongRowDeliveries))
        add("renders_started", Double(photos.rendersStarted + charts.started))
        add("renders_cancelled", Double(counters.cancelled))
        add("cached", Double(counters.cached))
        add("in_flight", Double(counters.inFlight))
        add("monitor_hitches", Double(counters.monitorHitches))
        add("monitor_p99_ms", counters.monitorP99Ms)
        add("monitor_hitch_rate_ms_per_s", counters.monitorHitchRate)
        add("monitor_hangs", Double(counters.monitorHangs))
        add("photo_cache_hits", Double(photos.cacheHits))
        add("photo_renders_started", Double(photos.rendersStarted))
        add("photo_renders_cancelled", Double(photos.rendersCancelled))
        add("photo_deliveries", Double(photos.delivered))
        add("photo_cost_ms", (app.photos.pipeline.loader.costs.seconds ?? 0) * 1000)
        add("pipeline_decodes", Double(pipeline.decodes))
        add("pipeline_fetches", Double(pipeline.fetches))
        add("pipeline_thumbnail_hits", Double(pipeline.thumbnailHits))
        add("pipeline_processor_runs", Double(pipeline.processorRuns))
        add("pipeline_cancelled_stages", Double(pipeline.cancelledStages))
        add("pipeline_memory_hits", Double(pipeline.loads.cacheHits))
        add("chart_renders_started", Double(charts.started))
        add("chart_renders_cancelled", Double(charts.cancelled))
        add("chart_deliveries", Double(charts.delivered))
        add("cache_bytes", Double(app.photos.pipeline.memoryCacheCost))
        add("cache_budget_bytes", Double(PhotosPage.cacheBudget))
        add("decoding_bytes", Double(counters.decodingBytes))
        add("decoding_budget_bytes", Double(counters.decodingBudget))
        add("thumbnail_cache_limit_bytes", Double(counters.thumbnailCacheLimit))
        // The grid's blank area since the start (the fling script records its own window's first).
        add("blank_area_pct", counters.blankArea.percent)
        add("blank_area_max_pct", counters.blankArea.maxPercent)
        add("any_blank_ms", counters.blankArea.anyBlankMilliseconds)
        add("mostly_blank_ms", counters.blankArea.mostlyBlankMilliseconds)
        add("rss_mb", residentMegabytes())
        add("rss_peak_mb", peakResidentMegabytes())
        add("gl_driver_mapped", CairoWithoutGL.driverMapped() ? 1 : 0)
        let text = JSONObject(fields).json + "\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
            .joined(separator: " ") ?? "?"
    }

    /// Resident set size from /proc/self/statm.
    static func residentMegabytes() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = text.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
        else { return 0 }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
    }

    /// The most resident memory the process has had (VmHWM in /proc/self/status), in MB.
    static func peakResidentMegabytes() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            let kilobytes = fields.dropFirst().first.flatMap { Double($0) } ?? 0
            return kilobytes / 1024
        }
        return 0
    }

    /// The main thread's voluntary context switches so far (from /proc): each is a wake-up after it slept.
    static func mainThreadWakeups() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/task/\(getpid())/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
            return Int(line.split(separator: "\t").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "") ?? 0
        }
        return 0
    }

    /// CPU time (user + system) of this process, in seconds.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
