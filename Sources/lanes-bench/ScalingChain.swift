import Dispatch
import Foundation
import Lanes
import Synchronization

/// `scaling`'s chain and cancel-all rows, each beside Dispatch in the same run.
///
/// - `chain`: n empty items, each after the one before, added while they run (as `lanes-bench chain`) on a queue of
///   `threads`. Dispatch: each `DispatchWorkItem` a `notify` of the one before, spread over `threads` serial queues.
/// - `cancel-all`: `threads` blocked bodies fill the queue, n items wait behind them, and `cancelAll()` is timed
///   (then until every handle resolved). Dispatch: `threads` serial queues as full, each block cancelled in turn.
extension ScalingScenario {
    private var chainItems: Int { quick ? 4_000 : 20_000 }
    private var cancelItems: Int { quick ? 10_000 : 50_000 }

    func chain(_ threads: Int) async -> Row {
        let n = chainItems
        var row = Row(scenario: "scaling/chain", n: n)
        let (lanes, locks, wakeUps) = await lanesTimed(items: n) {
            let queue = WorkQueue("chain", maxConcurrency: threads)
            let start = now()
            var previous = queue.add { _ in }
            for _ in 1..<n { previous = queue.add(after: [previous]) { _ in } }
            await queue.idle()
            return seconds(since: start)
        }
        let dispatch = medianSync(repeats) {
            let queues = dispatchLanes(threads)
            let items = (0..<n).map { _ in DispatchWorkItem {} }
            let done = DispatchSemaphore(value: 0)
            let start = now()
            for index in 0..<(n - 1) {
                items[index].notify(queue: queues[(index + 1) % threads], execute: items[index + 1])
            }
            items[n - 1].notify(queue: queues[0]) { done.signal() }
            queues[0].async(execute: items[0])
            done.wait()
            return seconds(since: start)
        }
        Self.addPerItem(to: &row, items: n, threads: threads, lanes: lanes, dispatch: dispatch, locks: locks,
                        wakeUps: wakeUps)
        return row
    }

    func cancelAll(_ threads: Int) async -> Row {
        let n = cancelItems
        var row = Row(scenario: "scaling/cancel-all", n: n)
        var settled: [Double] = []
        let (lanes, locks, _) = await lanesTimed(items: n) {
            let queue = WorkQueue("cancel-all", maxConcurrency: threads)
            let release = DispatchSemaphore(value: 0)
            let started = DispatchSemaphore(value: 0)
            for _ in 0..<threads {
                queue.add { _ in
                    started.signal()
                    release.wait()
                }
            }
            for _ in 0..<threads { started.wait() }
            for _ in 0..<n { queue.add { _ in } }
            let start = now()
            queue.cancelAll()
            let elapsed = seconds(since: start)
            for _ in 0..<threads { release.signal() }
            await queue.idle()
            settled.append(seconds(since: start))
            return elapsed
        }
        let dispatch = medianSync(repeats) {
            let queues = dispatchLanes(threads)
            let release = DispatchSemaphore(value: 0)
            for queue in queues { queue.async { release.wait() } }
            let items = (0..<n).map { _ in DispatchWorkItem {} }
            for (index, item) in items.enumerated() { queues[index % threads].async(execute: item) }
            let start = now()
            for item in items { item.cancel() }
            let elapsed = seconds(since: start)
            for _ in 0..<threads { release.signal() }
            for queue in queues { queue.sync {} }
            return elapsed
        }
        row.count("threads", Double(threads))
        row.time("lanes", lanes)
        row.time("dispatch", dispatch)
        row.count("lanes_vs_dispatch", lanes / dispatch)
        row.count("lanes_all_resolved_s", settled.sorted()[settled.count / 2])
        locks.add(to: &row, seconds: lanes, threads: threads)
        return row
    }
}
