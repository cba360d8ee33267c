import LanesLists
import ScrollOracle

/// The ballistic oracle as a prefetcher wired to the scroller lives it: at each lift-off it believes the predicted
/// path, all of it, and learns of a touch that catches the fling only when it comes. The plain ballistic oracle's jobs
/// are the rows that really appeared (the lift-off only sets when it may start them), so after a catch it has spent
/// nothing on the rows the fling never reached: it foresaw the catch. This one plans each stretch between catches on
/// what was believed then (the true path so far, then the predicted one to its rest), keeps the renders it started
/// before the catch, and plans the next stretch from there; its schedule is scored on the true path.
///
/// A lift-off counts as caught when the touch came more than a screen of rows before the predicted rest (a wheel
/// click re-aiming a glide, a fling stopping under a row a second, are not). Renders running at a catch finish; the
/// next stretch's slots start at the catch (a render's overlap with it, under one render long, is ignored).
@MainActor
func plannedOnPrediction(
    driver: ScrollDriver, renderSeconds: Double, threads: Int, knownAt: [Int: Double]
) -> [Int: Double] {
    let visible = ScrollDriver.visibleRows
    let interval = Double(FrameProbe.interval) / 1e9
    var catches: [(time: Double, path: [(time: Double, rows: Range<Int>, counted: Bool)])] = []
    for (liftOff, prediction) in zip(driver.liftOffs, driver.liftOffPredictions) where liftOff.end.isFinite {
        let travelled = prediction.travel(after: liftOff.end - liftOff.time)
        guard abs(liftOff.travel - travelled) > visible else { continue }
        // The rest of the path as predicted, frame by frame, from the catch to the predicted rest.
        var path: [(time: Double, rows: Range<Int>, counted: Bool)] = []
        var time = liftOff.end
        while abs(liftOff.travel - prediction.travel(after: time - liftOff.time)) > 0.5, path.count < 10_000 {
            let top = min(max(0, liftOff.from + prediction.travel(after: time - liftOff.time)),
                          Double(ScrollDriver.rowCount) - visible)
            let first = Int(top.rounded(.down)), end = Int((top + visible).rounded(.up))
            path.append((time, first..<min(max(first, end), ScrollDriver.rowCount), true))
            time += interval
        }
        catches.append((liftOff.end, path))
    }
    var ready: [Int: Double] = [:]
    var origin = driver.origin
    for stage in 0...catches.count {
        let until = stage < catches.count ? catches[stage].time : .infinity
        let believed = driver.frames.filter { $0.time < until } + (stage < catches.count ? catches[stage].path : [])
        let windows = VisibilityWindow.windows(frames: believed).filter { $0.end > origin && ready[$0.row] == nil }
        if !windows.isEmpty {
            let plan = ScrollOracle.plan(
                windows: windows, renderSeconds: renderSeconds, threads: threads, horizon: 0, origin: origin,
                knownAt: knownAt)
            for (row, end) in plan.renderedBy where end - renderSeconds < until { ready[row] = end }
        }
        origin = until
    }
    return ready
}

/// Rows left unshown and the visible → shown latencies (ms) of a schedule (`ready`: when each row's content is ready)
/// on the true path's counted windows.
func scored(_ ready: [Int: Double], on windows: [VisibilityWindow]) -> (unshown: Int, latencies: [Double]) {
    var unshown = 0
    var latencies: [Double] = []
    for window in windows where window.counted {
        guard let at = ready[window.row], at < window.end else {
            unshown += 1
            continue
        }
        latencies.append(max(0, at - window.start) * 1000)
    }
    return (unshown, latencies)
}
