import CGtk4
import Dispatch
import Foundation
import Lanes
import LanesAppSupport
import LanesGLib
import LanesImages
import LanesLists
import Synchronization

/// `--script NAME`: drives the app in-process and adds its figures to the report.
@MainActor
enum Scripts {
    /// The scripts `--script` runs, by name.
    enum Name: String, CaseIterable, Sendable {
        case fling, flood, floodResults = "flood-results", idle, memory, detail, pages, categories, screens, hostile
        case animation, firstScreen = "first-screen", idleThumbnails = "idle-thumbnails", all
    }

    static func run(_ name: Name, app: DeskApp) async {
        if name == .firstScreen { return await firstScreen(app) }
        await pause(1500)  // the window is up and the first screen has loaded
        switch name {
        case .fling: await fling(app)
        case .flood: await flood(app)
        case .floodResults: await floodResults(app)
        case .idle: await idle(app)
        case .memory: await memory(app)
        case .detail: await detail(app)
        case .pages: await pages(app)
        case .categories:
            app.showPage("stocks")
            await pause(1500)
            await backOutOfCategory(app)
        case .screens: await screens(app)
        case .hostile: await hostile(app)
        case .animation: await animation(app)
        case .firstScreen: break
        case .idleThumbnails: await idleThumbnails(app)
        case .all:
            await fling(app)
            await idle(app)
            await flood(app)
            await toggle(app)
            await detail(app)
            await pages(app)
        }
    }

    static func pause(_ milliseconds: Int) async {
        try? await Task.sleep(for: .milliseconds(milliseconds))
    }

    static func record(_ app: DeskApp, _ key: String, _ value: Double) {
        app.report.append((key, .number(value)))
    }

    /// Where the frames in `window` spent their time (``FrameRecorder/FrameCost``): GTK's own frame work, our
    /// after-paint hooks, and for each frame over 25 ms its parts ("interval=paint+hooks+gap/main-thread CPU", ms).
    static func recordFrameCosts(_ app: DeskApp, _ prefix: String, in window: Range<Int64>) {
        let times = app.frames.paintTimes(in: window)
        record(app, prefix + "frame_paint_p99_ms", times.paintP99)
        record(app, prefix + "frame_paint_max_ms", times.paintMax)
        record(app, prefix + "frame_hooks_max_ms", times.hooksMax)
        let slow = app.frames.slowFrames(in: window, over: 25)
        record(app, prefix + "slow_frames_paint_ms", slow.paint)
        record(app, prefix + "slow_frames_hooks_ms", slow.hooks)
        record(app, prefix + "slow_frames_gap_ms", slow.gap)
        record(app, prefix + "slow_frames_main_cpu_ms", slow.cpu)
        app.report.append((prefix + "slow_frames", .text(slow.text)))
    }

    /// Moves `adjustment` from `start` at `pixelsPerSecond`, one step per frame, for `seconds`; returns the frame-clock
    /// window (microseconds) the motion covered.
    private static func scroll(
        _ app: DeskApp, _ adjustment: UnsafeMutablePointer<GtkAdjustment>, from start: Double, pixelsPerSecond: Double, seconds: Double
    ) async -> Range<Int64> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Range<Int64>, Never>) in
            var first: Int64?
            app.frames.drive(app.window) { time in
                let t0 = first ?? time
                first = t0
                let elapsed = Double(time - t0) / 1e6
                gtk_adjustment_set_value(adjustment, start + pixelsPerSecond * min(elapsed, seconds))
                if elapsed >= seconds {
                    continuation.resume(returning: t0..<(t0 + Int64(seconds * 1e6)))
                    return false
                }
                return true
            }
        }
    }

    /// Scrolls the photo grid's adjustment at 2,400 px/s for 3 s, one step per frame, a finger down (GTK's
    /// `scroll-begin`); then lifts off at that speed (GTK's `decelerate`) and glides on GTK's kinetic curve
    /// (``kineticGlide(_:_:from:pixelsPerSecond:screenshot:)``, with `--screenshot` taking `FILE-midfling.png` on the
    /// way); then lets it settle and takes the screenshot. Under Xvfb there is no touchpad: the script calls the
    /// controller's own entry points (``KineticScroll/began()``, ``KineticScroll/decelerated(velocityX:velocityY:unit:)``)
    /// with a surface-unit velocity, as GTK's signals would.
    static func fling(_ app: DeskApp) async {
        let adjustment = app.photos.adjustment
        let start = gtk_adjustment_get_value(adjustment)
        let monitor = ResponsivenessMonitor(interval: .milliseconds(8), threshold: .milliseconds(16))
        monitor.start()
        app.photos.stats.visibleToShown = []   // the first screen's cold start is not the scroll's
        app.photos.stats.leftUnshown = 0
        let deliveredBefore = app.photos.stats.delivered, neverShownBefore = app.photos.stats.neverShown
        // The fling starts from an app at rest, as a user's does: the first screen loaded (≤ 10 s) and the idle watch
        // asleep (≤ 5 s), so the fling wakes it.
        _ = await timeUntil(deadlineMilliseconds: 10_000) { app.photos.inFlight == 0 }
        record(app, "asleep_before_fling", await untilAsleep(app, deadlineMilliseconds: 5000) ? 1 : 0)
        let sampler = StatusSampler(app)
        app.photos.blankArea = BlankArea()
        let quickBefore = app.photos.stats.quickShown, blankBefore = app.photos.stats.leftBlank
        app.photos.kinetic.began()
        let done = await scroll(app, adjustment, from: start, pixelsPerSecond: 2400, seconds: 3)
        app.photos.kinetic.decelerated(
            velocityX: 0, velocityY: 2400 / KineticScroll.surfaceFactor, unit: GDK_SCROLL_UNIT_SURFACE)
        let midfling = app.options.screenshot.map { Self.insert("-midfling", into: $0) }
        let glide = await kineticGlide(
            app, adjustment, from: gtk_adjustment_get_value(adjustment), pixelsPerSecond: 2400, screenshot: midfling)
        sampler.stop()
        sampler.record(into: app)
        monitor.stop()
        let latency = monitor.snapshot()
        let (frames, intervals) = app.frames.frames(in: done)
        record(app, "frames", Double(frames))
        record(app, "frames_expected", 180)
        record(app, "frame_interval_p50_ms", percentile(intervals, 0.5))
        record(app, "frame_interval_p99_ms", percentile(intervals, 0.99))
        record(app, "frame_interval_max_ms", intervals.max() ?? 0)
        record(app, "frames_over_25ms", Double(intervals.filter { $0 > 25 }.count))
        recordFrameCosts(app, "", in: done)
        record(app, "main_latency_p50_ms", milliseconds(latency.p50))
        record(app, "main_latency_p99_ms", milliseconds(latency.p99))
        record(app, "main_latency_max_ms", milliseconds(latency.max))
        record(app, "hitches", Double(latency.hitches))
        record(app, "hitch_rate_ms_per_s", latency.hitchRate)
        record(app, "hangs", Double(latency.hangs))
        record(app, "scrolled_px", gtk_adjustment_get_value(adjustment) - start)
        record(app, "lift_offs", Double(app.photos.kinetic.liftOffs))
        record(app, "kinetic_px", glide.pixels)
        record(app, "kinetic_frames", Double(glide.frames))
        record(app, "kinetic_frames_over_25ms", Double(glide.intervals.filter { $0 > 25 }.count))
        record(app, "kinetic_frame_interval_max_ms", glide.intervals.max() ?? 0)
        if let blankCells = glide.blankCellsAtScreenshot { record(app, "midfling_blank_cells", Double(blankCells)) }
        recordBlankArea(app, quickBefore: quickBefore, blankBefore: blankBefore)
        app.photos.cameToRest()
        await settle(app)
        // The prefetch figures need priorities from the viewport; the naive mode has none (it renders in bind).
        let stats = app.photos.stats, measuresPrefetch = !app.photos.naive
        if measuresPrefetch {
            record(app, "visible_shown_p50_ms", percentile(stats.visibleToShown, 0.5))
            record(app, "visible_shown_p99_ms", percentile(stats.visibleToShown, 0.99))
            record(app, "rows_left_unshown", Double(stats.leftUnshown))
            record(app, "unfilled_at_rest", Double(stats.unfilledAtRest))
            record(app, "rest_shown_max_ms", stats.restToShown.max() ?? 0)
        }
        if let path = app.options.screenshot {
            do {
                try Screenshot.save(app.window, to: path, cells: app.photos.whollyVisibleCells())
            } catch {
                FileHandle.standardError.write(Data("lanes-desk: \(error)\n".utf8))
            }
        }
        await leavePhotos(app)
        // Prefetched images still waiting below the viewport went with the jump away: wasted, as in lanes-bench.
        let delivered = app.photos.stats.delivered - deliveredBefore
        let wasted = app.photos.stats.neverShown - neverShownBefore
        if measuresPrefetch {
            record(app, "images_never_shown", Double(wasted))
            record(app, "waste_pct", delivered > 0 ? Double(wasted) / Double(delivered) * 100 : 0)
        }
        // At rest again: what the bar says when the watch falls asleep against the counters at that moment.
        await StatusSampler.recordAtRest(app)
    }

    /// The grid's blank area over the motion (LanesLists' `BlankArea`, as `lanes-bench scroll` reports it), the quick
    /// renderings shown and the rows that left the screen without showing anything.
    static func recordBlankArea(_ app: DeskApp, quickBefore: Int, blankBefore: Int) {
        guard !app.photos.naive else { return }
        let figures = app.photos.blankArea.figures(lastFrameLasting: 1.0 / 60)
        record(app, "blank_area_pct", figures.percent)
        record(app, "blank_area_max_pct", figures.maxPercent)
        record(app, "any_blank_ms", figures.anyBlankMilliseconds)
        record(app, "mostly_blank_ms", figures.mostlyBlankMilliseconds)
        record(app, "quick_shown", Double(app.photos.stats.quickShown - quickBefore))
        record(app, "rows_left_blank", Double(app.photos.stats.leftBlank - blankBefore))
    }

    /// `path` with `suffix` before its extension ("shot.png" → "shot-midfling.png").
    static func insert(_ suffix: String, into path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let ext = url.pathExtension
        return url.deletingPathExtension().path + suffix + (ext.isEmpty ? "" : "." + ext)
    }

    /// Moves `adjustment` from `start` along GTK's kinetic curve for a lift-off at `pixelsPerSecond` (rest `v / 4`
    /// away, e^(−4t)), one step per frame, until within half a pixel of rest; with `screenshot`, saves the window
    /// 150 ms in (the frame interval it falls in is left out of the intervals) and counts the visible cells showing nothing.
    private static func kineticGlide(
        _ app: DeskApp, _ adjustment: UnsafeMutablePointer<GtkAdjustment>, from start: Double, pixelsPerSecond: Double,
        screenshot: String?
    ) async -> (pixels: Double, frames: Int, intervals: [Double], blankCellsAtScreenshot: Int?) {
        let rest = KineticScroll.restOffset(from: start, pixelsPerSecond: pixelsPerSecond)
        var shotAt: Int64?, shot: Range<Int64>?, blankCells: Int?
        let window = await withCheckedContinuation { (continuation: CheckedContinuation<Range<Int64>, Never>) in
            var first: Int64?
            app.frames.drive(app.window) { time in
                let t0 = first ?? time
                first = t0
                let elapsed = Double(time - t0) / 1e6
                let offset = KineticScroll.offset(from: start, pixelsPerSecond: pixelsPerSecond, after: elapsed)
                gtk_adjustment_set_value(adjustment, offset)
                if let screenshot, shotAt == nil, elapsed >= 0.15 {
                    // Taken just after this frame's tick (inside the tick the window has nothing drawn to take).
                    shotAt = time
                    Task { @MainActor in
                        let began = Int64(g_get_monotonic_time())
                        defer { shot = began..<(Int64(g_get_monotonic_time()) + 1) }
                        let visible = app.photos.whollyVisibleCells()
                        blankCells = visible.filter { !$0.hasContent }.count
                        do {
                            try Screenshot.save(app.window, to: screenshot, cells: visible)
                        } catch {
                            FileHandle.standardError.write(Data("lanes-desk: \(error)\n".utf8))
                        }
                    }
                }
                if abs(rest - offset) < 0.5 || elapsed > 3 {
                    continuation.resume(returning: t0..<(time + 1))
                    return false
                }
                return true
            }
        }
        var frames = app.frames.frames(in: window)
        if let shot {
            // The screenshot's time is not the scroll's: the frame interval it falls in is left out.
            let before = app.frames.frames(in: window.lowerBound..<shot.lowerBound)
            let after = app.frames.frames(in: shot.upperBound..<window.upperBound)
            frames = (before.count + after.count, before.intervals + after.intervals)
        }
        return (gtk_adjustment_get_value(adjustment) - start, frames.count, frames.intervals, blankCells)
    }

    /// Waits (up to 10 s) until no image work is in flight and every visible cell shows its image.
    static func settle(_ app: DeskApp) async {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            await pause(100)
            if app.photos.inFlight == 0 { break }
        }
        await pause(300)
        record(app, "settled_in_flight", Double(app.photos.inFlight))
    }

    /// Jumps far down the grid (a screenful of new loads starts), then switches to Stocks at once: the photo work in
    /// flight must reach 0 promptly and nothing may be delivered to the page afterwards.
    static func leavePhotos(_ app: DeskApp) async {
        let adjustment = app.photos.adjustment
        gtk_adjustment_set_value(adjustment, gtk_adjustment_get_value(adjustment) + 20_000)
        await pause(25)
        let before = app.photos.inFlight
        let deliveredBefore = app.photos.stats.deliveredWhileLeft
        app.showPage("stocks")
        let zeroAfter = await timeUntil(deadlineMilliseconds: 1000) { app.photos.inFlight == 0 }
        await pause(500)
        record(app, "leave_photos_in_flight_before", Double(before))
        record(app, "leave_photos_ms_to_zero", zeroAfter ?? -1)
        record(app, "leave_photos_delivered_after", Double(app.photos.stats.deliveredWhileLeft - deliveredBefore))
        app.showPage("photos")
        await pause(300)
    }

    /// Waits (≤ `deadlineMilliseconds`) for the idle watch to fall asleep; whether it did. The wait runs from GLib
    /// callbacks and the watch's own transition (an await resuming is main-queue work: it would wake the app).
    static func untilAsleep(_ app: DeskApp, deadlineMilliseconds: UInt32) async -> Bool {
        await withCheckedContinuation { continuation in
            let deadline = GLibTimeout.start(priority: 200, intervalMilliseconds: deadlineMilliseconds) {
                app.activity.cancelWhenAsleep()
                continuation.resume(returning: false)
                return false
            }
            app.activity.whenAsleep {
                GLibTimeout.cancel(deadline)
                continuation.resume(returning: true)
            }
        }
    }

    /// Polls `condition` every millisecond (GLib timeout) and returns the milliseconds it took, or nil on timeout.
    static func timeUntil(deadlineMilliseconds: Int, _ condition: @escaping @MainActor () -> Bool) async -> Double? {
        let start = DispatchTime.now().uptimeNanoseconds
        return await withCheckedContinuation { continuation in
            if condition() { return continuation.resume(returning: 0) }
            GLibTimeout.start(priority: 100, intervalMilliseconds: 1) {
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                if condition() {
                    continuation.resume(returning: elapsed)
                    return false
                }
                if elapsed > Double(deadlineMilliseconds) {
                    continuation.resume(returning: nil)
                    return false
                }
                return true
            }
        }
    }

    /// The app with nothing to do. Waits (≤ 5 s) for the idle watch to fall asleep, then measures 2 s of the process's
    /// CPU and of the main thread's wake-ups (voluntary context switches); then, still asleep, stalls the main thread with a 150 ms main-queue job,
    /// which the status bar's monitor (woken by the drain) must still report as a hitch. Until the stall everything
    /// runs from GLib callbacks and the watch's own transition: an await resuming is main-queue work, which would
    /// count as activity and wake the app.
    static func idle(_ app: DeskApp) async {
        await settle(app)
        let start = DispatchTime.now().uptimeNanoseconds
        let hitchesBefore = app.monitor.snapshot().hitches
        let longest = LongestHitch()
        app.monitor.onHitch { hitch in longest.note(hitch) }
        let figures = await withCheckedContinuation { (continuation: CheckedContinuation<IdleFigures, Never>) in
            // The window opens 200 ms after the watch fell asleep, once the status bar's last repaint is done.
            @MainActor func measure(asleepAfter: Double) {
                var before: IdleSample?
                GLibTimeout.start(priority: 200, intervalMilliseconds: 200) {
                    before = IdleSample()
                    return false
                }
                GLibTimeout.start(priority: 200, intervalMilliseconds: 2200) {
                    let after = IdleSample(), before = before ?? after
                    let asleep = app.activity.isAsleep
                    WorkQueue.main.add(label: "idle stall") { _ in
                        let end = DispatchTime.now().uptimeNanoseconds + 150_000_000
                        while DispatchTime.now().uptimeNanoseconds < end {}
                    }
                    continuation.resume(returning: IdleFigures(
                        asleepAfterMs: asleepAfter, cpuPercent: after.cpuPercent(since: before),
                        wakeupsPerSecond: after.wakeupsPerSecond(since: before), asleepAtEnd: asleep))
                    return false
                }
            }
            let deadline = GLibTimeout.start(priority: 200, intervalMilliseconds: 5000) {
                app.activity.cancelWhenAsleep()
                measure(asleepAfter: -1)
                return false
            }
            app.activity.whenAsleep {
                GLibTimeout.cancel(deadline)
                measure(asleepAfter: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
        }
        // The stall ran before this resumed; its ping is answered right after.
        await pause(300)
        record(app, "idle_asleep_after_ms", figures.asleepAfterMs)
        record(app, "idle_cpu_pct", figures.cpuPercent)
        record(app, "idle_main_wakeups_per_s", figures.wakeupsPerSecond)
        record(app, "idle_asleep_at_end", figures.asleepAtEnd ? 1 : 0)
        record(app, "idle_stall_hitches", Double(app.monitor.snapshot().hitches - hitchesBefore))
        // From the stall's start when the monitor saw it begin, else from the first ping's send (48 ms in, or later).
        record(app, "idle_stall_hitch_ms", longest.milliseconds)
    }

    /// For 1 s the main queue is never empty (a 2 ms job that re-posts itself, plus bursts of WorkQueue.main items
    /// from a background thread) while the grid scrolls slowly: frames must keep coming.
    /// Hundreds of results arriving at once while the grid scrolls (300 px/s for 2 s): every 250 ms a burst of 400
    /// main-queue results, each 0.2 ms of cell work (a texture upload), half for rows on screen (`visible`), half
    /// prefetched. The main-queue frame budget (``MainFrame``, driven by GTK's frame clock) fits them around the
    /// frames: visible ones first, prefetched ones in idle time, never more than half a frame of them at once.
    static func floodResults(_ app: DeskApp) async {
        let adjustment = app.photos.adjustment
        let start = gtk_adjustment_get_value(adjustment)
        let monitor = ResponsivenessMonitor(interval: .milliseconds(8), threshold: .milliseconds(16))
        monitor.start()
        let stop = StopFlag()
        let applied = Counter()
        DispatchQueue.global().async {
            while !stop.isSet {
                for index in 0..<400 {
                    WorkQueue.main.add(label: "result", priority: index.isMultiple(of: 2) ? .visible : .prefetch) { _ in
                        let end = DispatchTime.now().uptimeNanoseconds + 200_000
                        while DispatchTime.now().uptimeNanoseconds < end {}
                        applied.increment()
                    }
                }
                usleep(250_000)
            }
        }
        let window = await scroll(app, adjustment, from: start, pixelsPerSecond: 300, seconds: 2)
        stop.set()
        monitor.stop()
        let latency = monitor.snapshot()
        let (frames, intervals) = app.frames.frames(in: window)
        record(app, "flood_results_frames", Double(frames))
        record(app, "flood_results_frame_interval_p99_ms", percentile(intervals, 0.99))
        record(app, "flood_results_frame_interval_max_ms", intervals.max() ?? 0)
        record(app, "flood_results_frames_over_25ms", Double(intervals.filter { $0 > 25 }.count))
        recordFrameCosts(app, "flood_results_", in: window)
        record(app, "flood_results_hitch_rate_ms_per_s", latency.hitchRate)
        record(app, "flood_results_hangs", Double(latency.hangs))
        _ = await timeUntil(deadlineMilliseconds: 5_000) { WorkQueue.main.counts.unfinished == 0 }
        record(app, "flood_results_applied", Double(applied.value))
        await pause(300)
    }

    static func flood(_ app: DeskApp) async {
        let stop = StopFlag()
        let adjustment = app.photos.adjustment
        let start = gtk_adjustment_get_value(adjustment)
        let jobs = Counter()
        @Sendable func again() {
            guard !stop.isSet else { return }
            let end = DispatchTime.now().uptimeNanoseconds + 2_000_000
            while DispatchTime.now().uptimeNanoseconds < end {}
            jobs.increment()
            DispatchQueue.main.async { again() }
        }
        DispatchQueue.main.async { again() }
        DispatchQueue.global().async {
            while !stop.isSet {
                for _ in 0..<20 {
                    WorkQueue.main.add(label: "flood") { _ in
                        let end = DispatchTime.now().uptimeNanoseconds + 100_000
                        while DispatchTime.now().uptimeNanoseconds < end {}
                        jobs.increment()
                    }
                }
                usleep(5000)
            }
        }
        let window = await scroll(app, adjustment, from: start, pixelsPerSecond: 300, seconds: 1)
        stop.set()
        record(app, "flood_frames", Double(app.frames.frames(in: window).count))
        record(app, "flood_jobs", Double(jobs.value))
        await pause(300)
    }

    /// Three full passes over the library in 40 jumps each: the image cache stays within its budget and RSS settles.
    static func memory(_ app: DeskApp) async {
        let adjustment = app.photos.adjustment
        var rss: [Double] = []
        for _ in 0..<3 {
            let upper = gtk_adjustment_get_upper(adjustment) - gtk_adjustment_get_page_size(adjustment)
            for step in 0..<40 {
                gtk_adjustment_set_value(adjustment, upper * Double(step) / 39)
                await pause(120)
            }
            await settle(app)
            rss.append(Report.residentMegabytes())
        }
        record(app, "rss_after_first_scroll_mb", rss[0])
        record(app, "rss_after_third_scroll_mb", rss[2])
        record(app, "rss_growth_pct", (rss[2] - rss[0]) / rss[0] * 100)
        record(app, "cache_bytes_after_scrolls", Double(app.photos.pipeline.memoryCacheCost))
    }

    /// Turns the thumbnails' tilt-shift off and on again: every bound cell rebinds in place to another request.
    static func toggle(_ app: DeskApp) async {
        let before = app.photos.stats.delivered
        app.photos.setTiltShift(false)
        await settle(app)
        app.photos.setTiltShift(true)
        await settle(app)
        record(app, "toggle_deliveries", Double(app.photos.stats.delivered - before))
    }

    /// Opens a visible photo, drags the band slider for 2 s (60 changes a second, in pairs), closes it.
    static func detail(_ app: DeskApp) async {
        guard let row = app.photos.visibleCells().compactMap(\.row).min() else { return }
        app.photos.open(row)
        await pause(800)
        let detail = app.photos.detail!
        let requested = detail.requested, cancelled = detail.cancelled
        for step in 0..<60 {
            // A fast drag delivers several value changes between two frames: the second always finds the first's
            // renders in flight and cancels them.
            detail.setBand(0.2 + 0.6 * (Double(step) - 0.5) / 59)
            detail.setBand(0.2 + 0.6 * Double(step) / 59)
            await pause(33)
        }
        let shown = detail.fullRendersShown
        for _ in 0..<100 where detail.fullRendersShown == shown { await pause(100) }  // the last full render, ≤ 10 s
        record(app, "detail_renders_requested", Double(detail.requested - requested))
        record(app, "detail_renders_cancelled", Double(detail.cancelled - cancelled))
        record(app, "detail_previews_shown", Double(detail.previewsShown))
        record(app, "detail_full_shown", Double(detail.fullRendersShown))
        app.photos.closeDetail()
        await pause(300)
    }

    /// `--folder` with an animated GIF or WebP first: opens row 0's detail, waits (≤ 10 s) until two different frames
    /// were drawn, saves `--screenshot` (with `-animation` before the extension), closes the view and records how many
    /// frames were drawn in the 600 ms after closing (0: the timer stopped with the view).
    static func animation(_ app: DeskApp) async {
        _ = await timeUntil(deadlineMilliseconds: 10_000) { app.photos.library.count > 0 }
        app.photos.open(0)
        let detail = app.photos.detail!
        _ = await timeUntil(deadlineMilliseconds: 10_000) {
            (detail.animation?.distinctFramesShown.count ?? 0) >= 2
        }
        record(app, "animation_distinct_frames", Double(detail.animation?.distinctFramesShown.count ?? 0))
        if let file = app.options.screenshot {
            let url = URL(fileURLWithPath: file)
            let shot = url.deletingPathExtension().path + "-animation." + (url.pathExtension.isEmpty ? "png" : url.pathExtension)
            gtk_widget_queue_draw(app.window)
            await pause(100)
            do {
                try Screenshot.save(app.window, to: shot, cells: [])
            } catch {
                FileHandle.standardError.write(Data("lanes-desk: \(error)\n".utf8))
            }
        }
        let shown = detail.animation?.framesShown ?? 0
        app.photos.closeDetail()
        await pause(600)
        record(app, "animation_frames_shown", Double(shown))
        record(app, "animation_frames_after_close", Double((detail.animation?.framesShown ?? 0) - shown))
        record(app, "animation_running_after_close", detail.animation?.isRunning == true ? 1 : 0)
    }

    /// Stocks: backs out of a category while its charts are in flight, opens the category again and its first
    /// stock's detail chart, resizes the window five times, then leaves the page while charts are in flight.
    static func pages(_ app: DeskApp) async {
        app.showPage("stocks")
        await pause(1500)
        await backOutOfCategory(app)
        if let largest = app.stocks.largestCategory { app.stocks.openCategory(largest) }
        await pause(800)
        app.stocks.openDetailForScript(0)
        await pause(800)
        let startedBefore = app.stocks.stats.started
        for (width, height) in [(900, 700), (1000, 740), (1100, 760), (1200, 800), (1024, 768)] {
            gtk_window_set_default_size(gcast(app.window), Int32(width), Int32(height))
            await pause(60)
        }
        await pause(1500)
        record(app, "resize_detail_renders", Double(app.stocks.stats.started - startedBefore))
        app.stocks.closeDetailForScript()
        await pause(300)
        // Scroll the category's list past the rows drawn so far so chart work is in flight, then leave.
        app.stocks.scrollForScript(by: 8000)
        await pause(30)
        let before = app.stocks.stats.inFlight
        let deliveredBefore = app.stocks.stats.deliveredWhileLeft, waitingBefore = app.stocks.stats.finishedBeforeLeaving
        app.showPage("photos")
        let zero = await timeUntil(deadlineMilliseconds: 1000) { app.stocks.unfinished == 0 }
        await pause(500)
        record(app, "leave_stocks_in_flight_before", Double(before))
        record(app, "leave_stocks_ms_to_zero", zero ?? -1)
        record(app, "leave_stocks_delivered_after", Double(app.stocks.stats.deliveredWhileLeft - deliveredBefore))
        record(app, "leave_stocks_finished_before", Double(app.stocks.stats.finishedBeforeLeaving - waitingBefore))
    }

    /// Opens the largest category and, as soon as its rows have bound and their charts are in flight, goes back
    /// (as the Back button does): the category's work in flight must reach 0 promptly and nothing of it may be
    /// delivered afterwards.
    static func backOutOfCategory(_ app: DeskApp) async {
        guard let largest = app.stocks.largestCategory else { return }
        app.stocks.openCategory(largest)
        _ = await timeUntil(deadlineMilliseconds: 2000) { app.stocks.stats.categoryInFlight > 0 }
        let before = app.stocks.stats.categoryInFlight
        let deliveredBefore = app.stocks.stats.deliveredToLeftView, waitingBefore = app.stocks.stats.finishedBeforeLeaving
        app.stocks.backToCategories()
        let zero = await timeUntil(deadlineMilliseconds: 1000) { app.stocks.stats.categoryInFlight == 0 }
        // The chart queue's items (the withdrawn ones stop at their next cancellation check).
        let drained = await timeUntil(deadlineMilliseconds: 2000) { app.stocks.unfinished == 0 }
        record(app, "back_category_ms_to_queue_empty", drained ?? -1)
        await pause(500)
        record(app, "back_category_in_flight_before", Double(before))
        record(app, "back_category_ms_to_zero", zero ?? -1)
        record(app, "back_category_delivered_after", Double(app.stocks.stats.deliveredToLeftView - deliveredBefore))
        record(app, "back_category_finished_before_back", Double(app.stocks.stats.finishedBeforeLeaving - waitingBefore))
        record(app, "back_category_showing_categories", app.stocks.category == nil ? 1 : 0)
    }

    /// Screenshots of each page for the README: the photo list, a photo opened with tilt-shift, the stock
    /// categories, the largest category's stocks, a stock's detail chart. `--screenshot FILE` names the first; the
    /// others get `-detail`, `-stocks`, `-stocks-list` and `-stocks-detail` before the extension.
    static func screens(_ app: DeskApp) async {
        guard let path = app.options.screenshot else { return }
        let base = (path as NSString).deletingPathExtension
        func save(_ file: String) async {
            // An app asleep for a while renders an empty snapshot: draw a frame first.
            gtk_widget_queue_draw(app.window)
            await pause(200)
            do {
                try Screenshot.save(app.window, to: file, cells: app.photos.whollyVisibleCells())
            } catch {
                FileHandle.standardError.write(Data("lanes-desk: \(error)\n".utf8))
            }
        }
        gtk_adjustment_set_value(app.photos.adjustment, 124 * 40)
        await settle(app)
        await save(path)
        if let row = app.photos.visibleCells().compactMap(\.row).min() {
            app.photos.open(row + 1)
            let detail = app.photos.detail!
            for _ in 0..<100 where detail.fullRendersShown == 0 { await pause(100) }
            await pause(300)
            await save(base + "-detail.png")
            app.photos.closeDetail()
        }
        app.showPage("stocks")
        await pause(4000)
        await save(base + "-stocks.png")
        if let largest = app.stocks.largestCategory { app.stocks.openCategory(largest) }
        await pause(4000)
        await save(base + "-stocks-list.png")
        app.stocks.openDetailForScript(0)
        await pause(4000)
        await save(base + "-stocks-detail.png")
    }

    nonisolated static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}

/// A flag set once from the main thread and read by the flood's threads.
private final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
}

/// The longest hitch reported to it, from whichever thread the monitor calls.
private final class LongestHitch: Sendable {
    private let microseconds = Atomic<Int>(0)
    var milliseconds: Double { Double(microseconds.load(ordering: .relaxed)) / 1000 }
    func note(_ hitch: Hitch) {
        microseconds.max(Int(Scripts.milliseconds(hitch.duration) * 1000), ordering: .relaxed)
    }
}

/// A counter bumped from any thread.
private final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }
    func increment() { count.add(1, ordering: .relaxed) }
}

/// What the idle script measured.
private struct IdleFigures: Sendable {
    var asleepAfterMs: Double
    var cpuPercent: Double
    var wakeupsPerSecond: Double
    var asleepAtEnd: Bool
}

/// The process's CPU time and the main thread's voluntary context switches (each one a wake-up from `poll` or a
/// lock) at one moment.
@MainActor
private struct IdleSample {
    let time = DispatchTime.now().uptimeNanoseconds
    let cpu = Report.cpuSeconds()
    let wakeups = Report.mainThreadWakeups()

    func cpuPercent(since start: IdleSample) -> Double {
        (cpu - start.cpu) / (Double(time - start.time) / 1e9) * 100
    }

    func wakeupsPerSecond(since start: IdleSample) -> Double {
        Double(wakeups - start.wakeups) / (Double(time - start.time) / 1e9)
    }
}
