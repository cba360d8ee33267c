import Foundation
import ScrollOracle

/// The oracle's figures beside a scroll run's own: the fewest rows any scheduler on the run's render threads, each
/// render taking `renderMilliseconds` (the run's own average), could have left on screen without content on the same
/// path (H = ∞: knowing all of it; H = 0.5 s: half a second ahead; H = 0: nothing ahead, rendering only rows already
/// on screen), and its visible → shown p99, with the run's figures under the names the goal uses and their
/// ratios.
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
    row.count("wrong", row.counts.first { $0.0 == "wrong_cell_deliveries" }?.1 ?? 0)
    // The goal: unshown ≤ 1.25 × the H = 0.5 s oracle's + 2, p99 ≤ the oracle's + one frame.
    let meets = lanesUnshown <= 1.25 * Double(ahead.unshown) + 2 && lanesP99 <= oracleHP99 + 16.7
    row.count("meets_oracle_goal", meets ? 1 : 0)
    row.count("oracle_render_ms", renderMilliseconds)
    row.count("oracle_compute_ms", seconds(since: start) * 1000)
}
