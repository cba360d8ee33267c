import Foundation
import Lanes
import LanesLists
import LanesTesting

/// A deterministic model of `lanes-bench scroll`'s fling on a virtual clock: a 10,000-row list with 20 rows on
/// screen, ticked at 60 Hz along a scripted path, wired the way `ListModel.connect` wires a loader, to a simulated
/// render pool (`threads` threads, `speculative` of them for rows below normal priority, each render `cost` seconds,
/// highest priority first, first come first served within one). It counts the rows that came on screen and left
/// without their content, and renders that finished for rows never shown.
@MainActor
final class PreloadPlanSimulation {
    struct Outcome { var unshown = 0; var completed = 0; var wasted = 0; var shownLate: [Double] = [] }

    private struct Job { var row: Int; var priority: WorkPriority; var visible: Bool; var prefetch: Bool; var started: Double?; var order: Int }

    let clock = VirtualClock(start: 1_000_000_000)
    let list: ListModel<Int>
    private let cost: Double
    private let threads: Int
    private let speculative: Int
    private var jobs: [Int: Job] = [:]
    private var cached = Set<Int>()
    private var waitingSince: [Int: Double] = [:]
    private var shown = Set<Int>()
    private var everShown = Set<Int>()
    private var order = 0
    private var time = 0.0
    private(set) var outcome = Outcome()

    init(cost: Double, threads: Int, speculative: Int, planned: Bool) {
        self.cost = cost
        self.threads = threads
        self.speculative = speculative
        list = ListModel(rowCount: 10_000, rowHeight: 1, viewportHeight: 20, clock: clock) { 0 }
        if planned {
            let costs = CostEstimate()
            costs.record(seconds: cost)
            list.planPreload(costs: costs, threads: speculative, allThreads: threads)
        }
        list.observe { [unowned self] event in
            switch event {
            case .willDisplay(let row, _):
                if cached.contains(row) { shown.insert(row); everShown.insert(row); return }
                waitingSince[row] = time
                let priority = planned ? list.loadPriority(forRow: row) : .visible
                request(row, priority: priority, visible: true)
            case .didEndDisplay(let row, _):
                if waitingSince.removeValue(forKey: row) != nil { outcome.unshown += 1 }
                shown.remove(row)
                drop(row, visible: true)
            case .enterPreload(let row):
                if !cached.contains(row) { request(row, priority: planned ? list.preloadPriority : .prefetch, visible: false) }
            case .leavePreload(let row):
                drop(row, visible: false)
            }
        }
        list.layoutIfNeeded()
        for row in list.visibleRows { cached.insert(row); shown.insert(row); everShown.insert(row) }
    }

    private func request(_ row: Int, priority: WorkPriority, visible: Bool) {
        order += 1
        var job = jobs[row] ?? Job(row: row, priority: priority, visible: false, prefetch: false, started: nil, order: order)
        if priority > job.priority { job.priority = priority }
        if visible { job.visible = true } else { job.prefetch = true }
        jobs[row] = job
    }

    private func drop(_ row: Int, visible: Bool) {
        guard var job = jobs[row] else { return }
        if visible { job.visible = false } else { job.prefetch = false }
        if !job.visible && !job.prefetch { jobs[row] = nil } else {
            if !job.visible { job.priority = min(job.priority, .normal) }
            jobs[row] = job
        }
    }

    /// Runs the render pool from `time` to `end`: jobs start when a thread is free, finish `cost` later.
    private func runPool(until end: Double) {
        while true {
            let running = jobs.values.filter { $0.started != nil }
            // The next finish before `end`, or a free thread to start a job now.
            if let next = running.min(by: { $0.started! < $1.started! }), next.started! + cost <= end,
                running.count >= threads || !canStart(running)
            {
                time = max(time, next.started! + cost)
                finish(next.row)
                continue
            }
            if running.count < threads, let job = nextJob(running) {
                jobs[job.row]!.started = time
                continue
            }
            if let next = running.min(by: { $0.started! < $1.started! }), next.started! + cost <= end {
                time = max(time, next.started! + cost)
                finish(next.row)
                continue
            }
            time = end
            return
        }
    }

    private func canStart(_ running: [Job]) -> Bool { running.count < threads && nextJob(running) != nil }

    private func nextJob(_ running: [Job]) -> Job? {
        let speculativeRunning = running.filter { $0.priority < .normal }.count
        return jobs.values.filter { $0.started == nil && ($0.priority >= .normal || speculativeRunning < speculative) }
            .max { ($0.priority, -$0.order) < ($1.priority, -$1.order) }
    }

    private func finish(_ row: Int) {
        jobs[row] = nil
        outcome.completed += 1
        cached.insert(row)
        if list.visibleRows.contains(row) {
            shown.insert(row)
            everShown.insert(row)
            if let since = waitingSince.removeValue(forKey: row) { outcome.shownLate.append(time - since) }
        }
    }

    /// Plays `path` (offset at t seconds) for `seconds`, a frame every 1/60 s, then counts the waste.
    func play(seconds: Double, path: (Double) -> Double) -> Outcome {
        let frame = 1.0 / 60
        var t = 0.0
        while t < seconds {
            t += frame
            runPool(until: t)
            clock.advance(by: Duration.nanoseconds(Int64(frame * 1e9)))
            list.scroll(to: path(t))
            for row in list.visibleRows where cached.contains(row) && waitingSince[row] != nil {
                waitingSince[row] = nil
                shown.insert(row)
                everShown.insert(row)
            }
        }
        runPool(until: t + 1)
        outcome.wasted = cached.subtracting(everShown).count
        return outcome
    }

    /// The bench's fling: 1.2 s at 60 rows/s, then a fling at 2,000 rows/s slowing with a time constant of 0.3 s.
    static func fling(_ t: Double) -> Double {
        let steady = 1.2
        if t < steady { return 60 * t }
        let end: Double = 0.3 * log(2_000 / 8.0)
        let f: Double = min(t - steady, end)
        let travelled: Double = 2_000 * 0.3 * (1 - exp(-f / 0.3))
        return 72 + travelled
    }
}
