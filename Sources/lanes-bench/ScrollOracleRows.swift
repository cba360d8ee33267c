import Foundation
import LanesLists
import ScrollOracle

/// The oracle's figures beside a scroll run's own: the fewest rows any scheduler on the run's render threads, each
/// render taking `renderMilliseconds` (``ScrollCalibration``'s wall time or the run's own mean, the less, at least the
/// CPU cost: never more than the calibration, so a schedule cannot stretch it), could have left on screen without content on the same path (H = ∞: knowing all
/// of it; H = 0.5 s: half a second ahead; H = 0: nothing ahead, rendering only rows already on screen), and its
/// visible → shown p99, with the run's figures under the names the goal uses and their ratios.
@MainActor
func addOracle(to row: inout Row, driver: ScrollDriver, renderMilliseconds: Double, threads: Int) {
    let windows = VisibilityWindow.windows(frames: driver.frames)
    let renderSeconds = renderMilliseconds / 1000
    let start = now()
    let clairvoyant = ScrollOracle.plan(
        windows: windows, renderSeconds: renderSeconds, threads: threads, horizon: .infinity, origin: driver.origin)
    let ahead = ScrollOracle.plan(
        windows: windows, renderSeconds: renderSeconds, threads: threads, horizon: 0.5, origin: driver.origin)
    // No look-ahead at all: the best a purely reactive scheduler (rendering only rows already on screen) could do.
    let reactive = ScrollOracle.plan(
        windows: windows, renderSeconds: renderSeconds, threads: threads, horizon: 0, origin: driver.origin)
    // The ballistic oracle: nothing ahead while the finger is down, the whole kinetic path from each lift-off — as
    // predicted then (what a prefetcher wired to the scroller can know), or as it went until the next touch (truth).
    let visible = Int(ScrollDriver.visibleRows.rounded(.up))
    let predicted = ballisticKnowledge(driver.liftOffs, visible: visible)
    let truth = truthKnowledge(driver.liftOffs, frames: driver.frames)
    let ballistic = ScrollOracle.plan(
        windows: windows, renderSeconds: renderSeconds, threads: threads, horizon: 0, origin: driver.origin,
        knownAt: predicted)
    let ballisticTruth = ScrollOracle.plan(
        windows: windows, renderSeconds: renderSeconds, threads: threads, horizon: 0, origin: driver.origin,
        knownAt: truth)
    // A causal baseline: each frame extrapolates the current velocity one second ahead (Chrome's prefetch rule).
    let velocity = velocityKnowledge(frames: driver.frames, seconds: 1, visible: visible)
    let chrome = ScrollOracle.plan(
        windows: windows, renderSeconds: renderSeconds, threads: threads, horizon: 0, origin: driver.origin,
        knownAt: velocity)
    if ScrollTrace.isOn, driver.mode == .lanes {
        ScrollTrace.write(
            driver: driver, windows: windows.map { ($0.row, $0.start, $0.end, $0.counted) }, oracle: ballistic.renderedBy,
            renderMilliseconds: renderMilliseconds)
    }
    let lanesUnshown = Double(driver.leftUnshown)
    let lanesP99 = quantile(driver.visibleToShown, 0.99)
    let oracleP99 = quantile(clairvoyant.visibleToShownMilliseconds, 0.99)
    let oracleHP99 = quantile(ahead.visibleToShownMilliseconds, 0.99)
    row.count("lanes_unshown", lanesUnshown)
    row.count("oracle_unshown", Double(clairvoyant.unshown))
    row.count("oracle_h_unshown", Double(ahead.unshown))
    row.count("oracle_h0_unshown", Double(reactive.unshown))
    row.count("unshown_vs_oracle_h", lanesUnshown / Double(max(1, ahead.unshown)))
    row.count("lanes_visible_shown_p99_ms", lanesP99)
    row.count("oracle_visible_shown_p99_ms", oracleP99)
    row.count("oracle_h_visible_shown_p99_ms", oracleHP99)
    row.count("oracle_h0_visible_shown_p99_ms", quantile(reactive.visibleToShownMilliseconds, 0.99))
    row.count("visible_shown_p99_over_oracle_h_ms", lanesP99 - oracleHP99)
    row.count("oracle_h_renders", Double(ahead.renders))
    let ballisticP99 = quantile(ballistic.visibleToShownMilliseconds, 0.99)
    row.count("oracle_ballistic_unshown", Double(ballistic.unshown))
    row.count("oracle_ballistic_truth_unshown", Double(ballisticTruth.unshown))
    row.count("oracle_velocity_1s_unshown", Double(chrome.unshown))
    row.count("oracle_ballistic_visible_shown_p99_ms", ballisticP99)
    row.count("lift_offs", Double(driver.liftOffs.count))
    // The same, planning each stretch on the predicted path and learning of a catch when it comes (the plain one's
    // jobs are the rows that really appeared, so it never spends a render past a catch).
    let plannedReady = plannedOnPrediction(
        driver: driver, renderSeconds: renderSeconds, threads: threads, knownAt: predicted)
    let planned = scored(plannedReady, on: windows)
    row.count("oracle_ballistic_planned_unshown", Double(planned.unshown))
    row.count("oracle_ballistic_planned_visible_shown_p99_ms", quantile(planned.latencies, 0.99))
    // Issue 35's goal without a quick tier: unshown ≤ 1.25 × the ballistic oracle's + 2, p99 ≤ its p99 + one frame.
    let meetsBallistic = lanesUnshown <= 1.25 * Double(ballistic.unshown) + 2 && lanesP99 <= ballisticP99 + 16.7
    row.count("meets_ballistic_goal", meetsBallistic ? 1 : 0)
    row.count("wrong", row.counts.first { $0.0 == "wrong_cell_deliveries" }?.1 ?? 0)
    // The goal: unshown ≤ 1.25 × the H = 0.5 s oracle's + 2, p99 ≤ the oracle's + one frame.
    let meets = lanesUnshown <= 1.25 * Double(ahead.unshown) + 2 && lanesP99 <= oracleHP99 + 16.7
    row.count("meets_oracle_goal", meets ? 1 : 0)
    row.count("oracle_render_ms", renderMilliseconds)
    // Blank area (the share of counted visible row-frames without content, as `blank_area_pct`) of each oracle's
    // schedule, and of the ballistic oracles given only quick renderings at the quick tier's cost: what a scheduler
    // that shows every row its quick rendering first could reach (the quick tier's floor; the full renders then come
    // in the time left).
    let counted = driver.frames.filter(\.counted)
    let interval = Double(FrameProbe.interval) / 1e9
    for (name, oracle) in [("ballistic", ballistic), ("ballistic_truth", ballisticTruth), ("h0", reactive),
                           ("h", ahead), ("velocity_1s", chrome)] {
        row.count("oracle_\(name)_blank_area_pct", blankArea(of: oracle, frames: counted, interval: interval))
    }
    row.count("oracle_ballistic_planned_blank_area_pct", blankArea(ready: plannedReady, frames: counted, interval: interval))
    let quickMilliseconds = renderMilliseconds * quickCostRatio(driver.renderer)
    let quickBallistic = ScrollOracle.plan(
        windows: windows, renderSeconds: quickMilliseconds / 1000, threads: threads, horizon: 0,
        origin: driver.origin, knownAt: predicted)
    let quickReactive = ScrollOracle.plan(
        windows: windows, renderSeconds: quickMilliseconds / 1000, threads: threads, horizon: 0,
        origin: driver.origin)
    // Both causal sources at once: the lift-off's path, and while the finger is down the velocity's second ahead
    // (rows that appear during a drag are otherwise blank on their first frame: nothing foresaw them).
    let quickCausal = ScrollOracle.plan(
        windows: windows, renderSeconds: quickMilliseconds / 1000, threads: threads, horizon: 0,
        origin: driver.origin, knownAt: predicted.merging(velocity, uniquingKeysWith: min))
    row.count("oracle_ballistic_velocity_quick_blank_area_pct", blankArea(of: quickCausal, frames: counted, interval: interval))
    row.count("oracle_quick_render_ms", quickMilliseconds)
    row.count("oracle_ballistic_quick_unshown", Double(quickBallistic.unshown))
    row.count("oracle_ballistic_quick_blank_area_pct", blankArea(of: quickBallistic, frames: counted, interval: interval))
    row.count("oracle_h0_quick_blank_area_pct", blankArea(of: quickReactive, frames: counted, interval: interval))
    row.count("oracle_compute_ms", seconds(since: start) * 1000)
}

/// The blank area of `oracle`'s schedule over `frames` (counted ones): a row is blank in a frame until its render
/// ends, as `blank_area_pct` counts a Lanes row blank until its content reaches the cell.
func blankArea(of oracle: ScrollOracle, frames: [(time: Double, rows: Range<Int>, counted: Bool)], interval: Double)
    -> Double
{
    blankArea(ready: oracle.renderedBy, frames: frames, interval: interval)
}

/// The blank area of a schedule given as when each row's content is ready.
func blankArea(ready: [Int: Double], frames: [(time: Double, rows: Range<Int>, counted: Bool)], interval: Double)
    -> Double
{
    var tracker = BlankArea()
    for frame in frames {
        let blank = frame.rows.count { row in (ready[row] ?? .infinity) > frame.time }
        tracker.frame(at: frame.time, blank: blank, visible: frame.rows.count)
    }
    return tracker.figures(lastFrameLasting: interval).percent
}

/// What a quick rendering (the bench's quick tier: an eighth of the smoothing passes) costs next to a full one: the
/// ratio of their least CPU times over a few renders.
func quickCostRatio(_ renderer: RowRenderer) -> Double {
    let quick = RowRenderer(passes: max(1, renderer.passes / 8), counters: RenderCounters())
    let full = RowRenderer(passes: renderer.passes, counters: RenderCounters())
    let ratio = quick.cpuMilliseconds(samples: 7, least: true) / max(full.cpuMilliseconds(samples: 7, least: true), 1e-6)
    return min(1, max(0.01, ratio))
}

/// Rows known at each lift-off from the predicted path: from where the list was to where the prediction comes to
/// rest, a screen's rows included.
@MainActor func ballisticKnowledge(_ liftOffs: [(time: Double, from: Double, travel: Double, end: Double)], visible: Int)
    -> [Int: Double]
{
    var known: [Int: Double] = [:]
    for liftOff in liftOffs {
        let low = Int(min(liftOff.from, liftOff.from + liftOff.travel).rounded(.down))
        let high = Int(max(liftOff.from, liftOff.from + liftOff.travel).rounded(.up)) + visible
        for row in max(0, low)..<min(ScrollDriver.rowCount, max(low, high) + 1) {
            known[row] = min(known[row] ?? .infinity, liftOff.time)
        }
    }
    return known
}

/// Rows known at each lift-off from the path as it went until the next touch (or rest).
func truthKnowledge(_ liftOffs: [(time: Double, from: Double, travel: Double, end: Double)],
                    frames: [(time: Double, rows: Range<Int>, counted: Bool)]) -> [Int: Double] {
    var known: [Int: Double] = [:]
    for liftOff in liftOffs {
        for frame in frames where frame.time >= liftOff.time && frame.time <= liftOff.end {
            for row in frame.rows { known[row] = min(known[row] ?? .infinity, liftOff.time) }
        }
    }
    return known
}

/// Rows a scheduler extrapolating the current velocity `seconds` ahead knows at each frame (a jump, more than a
/// screen in one frame, is not a velocity).
@MainActor func velocityKnowledge(frames: [(time: Double, rows: Range<Int>, counted: Bool)], seconds: Double, visible: Int)
    -> [Int: Double]
{
    var known: [Int: Double] = [:]
    for (previous, frame) in zip(frames, frames.dropFirst()) {
        let step = frame.rows.lowerBound - previous.rows.lowerBound
        let elapsed = frame.time - previous.time
        guard step != 0, abs(step) <= visible, elapsed > 0 else { continue }
        let ahead = Int((Double(step) / elapsed * seconds).rounded())
        let range = ahead > 0
            ? frame.rows.upperBound..<min(ScrollDriver.rowCount, frame.rows.upperBound + ahead)
            : max(0, frame.rows.lowerBound + ahead)..<frame.rows.lowerBound
        for row in range where known[row] == nil { known[row] = frame.time }
    }
    return known
}
