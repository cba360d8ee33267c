import Dispatch
import Foundation
import Lanes
import LanesLists
import Synchronization

/// The `scroll` scenario: a 10,000-row list with 20 rows visible, whose cells each need a ~2 ms render, scrolled by a
/// script (steady, fling, reversal, jump to the end) on the real main queue with a 60 Hz frame tick, in three modes.
/// Returns one row per mode ("scroll/lanes", "scroll/lanes-fixed", …, "scroll/naive-background"), then "scroll/baseline":
/// the same frame tick and scroll with no content, the main queue's latency floor on this machine at that moment.
/// Each mode's row carries the oracle beside it (``addOracle(to:driver:renderMilliseconds:threads:)``): the fewest rows
/// any scheduler on its render threads could have left unshown on the same path, and its visible → shown p99. The
/// oracle's render takes the wall time of ``ScrollCalibration``'s passes (the same renders on the same threads with no
/// list running, just before and after the run), or the run's own mean render wall time where that is less: the
/// contention a schedule adds to its own renders never weakens its yardstick.
///
/// Each mode plays the script once (about 5 s; 2 s with `quick`; the baseline always plays the quick one): its
/// percentiles are over every frame of the run, so `repeats` does not multiply it.
///
/// `scripts` chooses the scrolls: the original fling script plays every mode, the `jitter`, `jump`, `caught`, `wheel` and
/// `pages` scripts play the Lanes modes and naive background rendering (rows "scroll-jitter/…", …, "scroll-pages/…").
/// `LANES_BENCH_SCROLL_MODES=lanes,naive-background`: play only these modes (scripts/bench-scroll plays `lanes`).
private let onlyModes = ProcessInfo.processInfo.environment["LANES_BENCH_SCROLL_MODES"].map {
    Set($0.split(separator: ",").map(String.init))
}

func scrollScenario(repeats: Int, quick: Bool, scripts: [ScrollScript] = ScrollScript.allCases) async -> [Row] {
    _ = repeats
    let counters = RenderCounters()
    let renderer = RowRenderer.calibrated(milliseconds: 2, counters: counters)
    let renderMilliseconds = renderer.cpuMilliseconds(samples: 15, least: true)
    var rows: [Row] = []
    for script in scripts {
        for mode in ScrollMode.allCases where script == .fling || mode != .naiveMain && mode != .baseline {
            if let only = onlyModes, !only.contains(mode.rawValue) { continue }
            let run = RowRenderer(passes: renderer.passes, counters: RenderCounters())
            rows.append(
                await playScroll(
                    mode: mode, script: script, renderer: run, quick: quick, renderMilliseconds: renderMilliseconds))
            blockingSleep(milliseconds: 200)   // let the machine settle between modes
        }
    }
    return rows
}

private func playScroll(
    mode: ScrollMode, script: ScrollScript, renderer: RowRenderer, quick: Bool, renderMilliseconds: Double
) async -> Row {
    let load = loadAverage()
    let driver: ScrollDriver = await withCheckedContinuation { continuation in
        DispatchQueue.main.async {
            MainActor.assumeIsolated {
                continuation.resume(returning: ScrollDriver(mode: mode, script: script, renderer: renderer, quick: quick))
            }
        }
    }
    let (queue, group) = await MainActor.run { (driver.renderQueue, driver.background) }
    // The oracle's render cost: the same renders on the same threads with no list running, before and after the run.
    let threads = mode == .naiveMain ? 1 : queue?.maxConcurrency ?? ProcessInfo.processInfo.activeProcessorCount
    let calibrates = mode != .baseline
    var calibration = ScrollCalibration()
    if calibrates { calibration.before = await ScrollCalibration.pass(renderer: renderer, queue: queue, threads: threads) }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.main.async {
            MainActor.assumeIsolated { driver.start { continuation.resume() } }
        }
    }
    // Let what is still in flight finish, so every render is counted: Lanes' cancelled items and the naive
    // background backlog (whose late deliveries still land in cells).
    if let queue { await queue.idle() }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        group.notify(queue: .main) { continuation.resume() }
    }
    await WorkQueue.main.idle()
    if calibrates { calibration.after = await ScrollCalibration.pass(renderer: renderer, queue: queue, threads: threads) }
    return await MainActor.run {
        summarize(driver, load: load, renderMilliseconds: renderMilliseconds, calibration: calibration)
    }
}

@MainActor
private func summarize(
    _ driver: ScrollDriver, load: Double, renderMilliseconds: Double, calibration: ScrollCalibration
) -> Row {
    let probe = driver.probe
    let counters = driver.renderer.counters
    let started = counters.started.load(ordering: .relaxed)
    let completed = counters.completed.load(ordering: .relaxed)
    let aborted = counters.aborted.load(ordering: .relaxed)
    let cancelled = driver.loader?.stats.cancelled ?? aborted
    let wasted = completed - driver.shown.count
    var row = Row(scenario: "\(driver.scriptKind.scenario)/\(driver.mode.rawValue)", n: ScrollDriver.rowCount)
    row.count("latency_p50_ms", quantile(probe.lateness, 0.5))
    row.count("latency_p99_ms", quantile(probe.lateness, 0.99))
    row.count("latency_max_ms", probe.lateness.max() ?? 0)
    row.count("turn_p99_ms", quantile(probe.turns, 0.99))
    row.count("turn_max_ms", probe.turns.max() ?? 0)
    row.count("frames", Double(probe.frames))
    row.count("frames_over_budget", Double(probe.overBudget))
    row.count("renders_started", Double(started))
    row.count("renders_completed", Double(completed))
    row.count("renders_cancelled", Double(cancelled))
    row.count("renders_aborted_midway", Double(aborted))
    row.count("wasted_renders", Double(wasted))
    row.count("waste_pct", completed > 0 ? Double(wasted) / Double(completed) * 100 : 0)
    row.count("completed_offscreen", Double(completed - driver.visibleAtDelivery.count))
    row.count("visible_shown_p50_ms", quantile(driver.visibleToShown, 0.5))
    row.count("visible_shown_p99_ms", quantile(driver.visibleToShown, 0.99))
    row.count("left_unshown", Double(driver.leftUnshown))
    for (segment, count) in driver.unshownBySegment { row.count("left_unshown_segment_\(segment)", Double(count)) }
    row.count("stops", Double(driver.stops))
    row.count("unfilled_at_stop", Double(driver.unfilledAtStop))
    row.count("stop_shown_p50_ms", quantile(driver.stopToShown, 0.5))
    row.count("stop_shown_p99_ms", quantile(driver.stopToShown, 0.99))
    // A jump to a screen nobody could preload: its floor is the screen's renders shared by the render threads, at the
    // render's calibrated CPU cost.
    let threads = driver.mode == .naiveBackground ? ProcessInfo.processInfo.activeProcessorCount : 0
    let width = max(1, driver.renderQueue?.maxConcurrency ?? threads)
    let rounds = (driver.unfilledAfterJump + width - 1) / width
    row.count("unfilled_after_jump", Double(driver.unfilledAfterJump))
    row.count("jump_shown_p50_ms", quantile(driver.jumpToShown, 0.5))
    row.count("jump_shown_p99_ms", quantile(driver.jumpToShown, 0.99))
    row.count("jump_floor_ms", Double(rounds) * renderMilliseconds)
    row.count("wrong_cell_deliveries", Double(driver.wrongCell + (driver.loader?.stats.wrongCellDeliveries ?? 0)))
    addBlankArea(to: &row, frames: driver.blankFrames, interval: Double(FrameProbe.interval) / 1e9)
    row.count("never_shown", Double(driver.neverShown))
    row.count("quick_shown", Double(driver.quickShown))
    var unfilled = 0
    for fill in driver.fills {
        row.count("fill_\(fill.name)_ms", fill.ms ?? -1)
        if fill.ms == nil { unfilled += 1 }
    }
    row.count("fill_max_ms", driver.fills.compactMap(\.ms).max() ?? -1)
    row.count("unfilled_stops", Double(unfilled))
    row.count("render_cpu_ms", renderMilliseconds)
    let busy = Double(counters.busyNanoseconds.load(ordering: .relaxed))
    let wall = completed > 0 ? busy / Double(completed) / 1e6 : 0
    row.count("render_wall_avg_ms", wall)
    let cpu = Double(counters.cpuNanoseconds.load(ordering: .relaxed))
    row.count("render_run_cpu_avg_ms", completed > 0 ? cpu / Double(completed) / 1e6 : 0)
    row.count("render_threads", Double(driver.renderQueue?.maxConcurrency ?? threads))
    row.count("loadavg_1m", load)
    if driver.mode != .baseline {
        // The oracle's renders take what the same renders took on the same threads with no list running, in the
        // passes before and after the run, or the run's own mean where that was less (a loaded machine favours the
        // run's intermittent renders over the passes' continuous ones), and at least their CPU cost: on a busy machine
        // the threads get less than a core each, and no schedule can change that; what the run's own renders took
        // beyond the passes (its contention with the main thread and itself) is the schedule's, not the yardstick's.
        row.count("render_calibrated_before_ms", calibration.before)
        row.count("render_calibrated_after_ms", calibration.after)
        row.count("render_calibrated_ms", calibration.wallMilliseconds)
        row.count("render_wall_over_calibrated", wall / max(calibration.wallMilliseconds, 1e-9))
        addOracle(
            to: &row, driver: driver,
            renderMilliseconds: max(renderMilliseconds, min(calibration.wallMilliseconds, wall > 0 ? wall : .infinity)),
            threads: driver.renderQueue?.maxConcurrency ?? max(1, threads))   // naive-main renders on the main thread
    }
    return row
}

/// Blank area as FlashList's tracker and React Native's fill-rate helper report it, over the counted frames
/// (LanesLists' `BlankArea`, which `lanes-desk` reports too): the share of visible row-frames without their content
/// (cumulative), the worst frame's share, and the milliseconds with any blank row and with more than half of the rows
/// blank (each frame lasts until the next one, the last one interval).
func addBlankArea(to row: inout Row, frames: [(time: Double, blank: Int, visible: Int)], interval: Double) {
    var tracker = BlankArea()
    for frame in frames { tracker.frame(at: frame.time, blank: frame.blank, visible: frame.visible) }
    let figures = tracker.figures(lastFrameLasting: interval)
    row.count("blank_area_pct", figures.percent)
    row.count("blank_area_max_pct", figures.maxPercent)
    row.count("any_blank_ms", figures.anyBlankMilliseconds)
    row.count("mostly_blank_ms", figures.mostlyBlankMilliseconds)
}
