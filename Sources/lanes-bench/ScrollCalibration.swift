import Dispatch
import Foundation
import Lanes
import Synchronization

/// What one render costs on this machine at the time of a scroll run, measured apart from the schedule under test:
/// the oracle's yardstick.
///
/// The run's own mean render wall time would let a schedule weaken its own yardstick: a schedule whose renders contend
/// with the main thread (or with each other) makes every render take longer, and an oracle given that longer render
/// leaves more rows unshown. So the oracle's render is timed in calibration passes instead: the run's own renders on
/// the run's own threads (the render queue at `.normal`, the width every visible row gets; the global queue for naive
/// background rendering), as many side by side as the run has render threads, with no list running, just before
/// the run and again just after it (its work finished). Load from other processes shows in both passes; nothing the
/// schedule does can. The oracle takes the passes' mean, or the run's own mean where that is less (see
/// ``rendersPerThread``), so its yardstick never exceeds what the renders cost without the schedule's contention.
struct ScrollCalibration: Sendable {
    /// Mean wall time of one render in the pass before the run and in the pass after it, in ms.
    var before = 0.0
    var after = 0.0

    /// The calibrated render wall time: the mean of the two passes (they bracket the run).
    var wallMilliseconds: Double { (before + after) / 2 }

    /// Renders per thread in each pass (about 80 ms of a 2 ms render on each thread at rest). Each pass keeps every
    /// thread busy throughout, as the oracle's schedule does in a fling: on a loaded machine such a thread gets its
    /// fair share of a core, less than the short renders of a quiet stretch get, so there the calibrated render can
    /// take longer than the run's own average.
    static let rendersPerThread = 40

    /// Times `threads` × ``rendersPerThread`` renders of `renderer`'s cost, run `threads` at a time on `queue` (or,
    /// with no queue, on the global queue's threads), and returns their mean wall time in ms.
    static func pass(renderer: RowRenderer, queue: WorkQueue?, threads: Int) async -> Double {
        let counters = RenderCounters()
        let probe = RowRenderer(passes: renderer.passes, counters: counters)
        let count = max(1, threads) * rendersPerThread
        if let queue {
            let items = (0..<count).map { row in
                queue.add(label: "scroll-calibration", priority: .normal) { _ in _ = probe.render(row: row) }
            }
            for item in items { _ = await item.result }
        } else {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    DispatchQueue.concurrentPerform(iterations: max(1, threads)) { thread in
                        for index in 0..<rendersPerThread { _ = probe.render(row: thread * rendersPerThread + index) }
                    }
                    continuation.resume()
                }
            }
        }
        let completed = counters.completed.load(ordering: .relaxed)
        return Double(counters.busyNanoseconds.load(ordering: .relaxed)) / Double(max(1, completed)) / 1e6
    }
}
