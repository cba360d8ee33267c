import CGtk4
import Dispatch
import Foundation
import Lanes
import LanesAppSupport
import LanesGLib
import Synchronization

/// The probe's phases and their figures. Lives on the main actor; background threads only post work.
@MainActor
final class ProbeReport {
    var figures: [(String, Double)] = []

    func runAll(idleMilliseconds: Int, isMainThread: @escaping @Sendable () -> Bool) async {
        await threads(isMainThread: isMainThread)
        await ordering()
        await latency()
        await idle(milliseconds: idleMilliseconds)
        await nested()
        await flood()
    }

    func json() -> String {
        JSONObject(figures.map { ($0.0, .number($0.1, decimals: 4)) }).json
    }

    /// 300 mixed jobs posted from a background thread: each records whether it ran on the main thread.
    private func threads(isMainThread: @escaping @Sendable () -> Bool) async {
        let onMain = Locked(0)
        let offMain = Locked(0)
        let done = Locked(0)
        let total = 300
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finish: @Sendable () -> Void = {
                (isMainThread() ? onMain : offMain).withLock { $0 += 1 }
                if done.withLock({ $0 += 1; return $0 }) == total { continuation.resume() }
            }
            DispatchQueue.global().async {
                for index in 0..<total {
                    switch index % 3 {
                    case 0: DispatchQueue.main.async { finish() }
                    case 1: WorkQueue.main.add(label: "probe") { _ in finish() }
                    default: Task { @MainActor in finish() }
                    }
                }
            }
        }
        figures.append(("main_thread_jobs", Double(onMain.withLock { $0 })))
        figures.append(("off_main_jobs", Double(offMain.withLock { $0 })))
    }

    /// 2,000 jobs posted in order from one thread, half through DispatchQueue.main and half through WorkQueue.main
    /// (each channel is FIFO on its own).
    private func ordering() async {
        let seen = Locked<(dispatch: [Int], lanes: [Int])>(([], []))
        let count = 1000
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let check: @Sendable () -> Void = {
                if seen.withLock({ $0.dispatch.count == count && $0.lanes.count == count }) { continuation.resume() }
            }
            DispatchQueue.global().async {
                for index in 0..<count {
                    DispatchQueue.main.async { seen.withLock { $0.dispatch.append(index) }; check() }
                    WorkQueue.main.add(label: "ordered") { _ in seen.withLock { $0.lanes.append(index) }; check() }
                }
            }
        }
        let (dispatch, lanes) = seen.withLock { $0 }
        let violations = zip(dispatch, dispatch.dropFirst()).filter { $0 >= $1 }.count
            + zip(lanes, lanes.dropFirst()).filter { $0 >= $1 }.count
        figures.append(("order_violations", Double(violations)))
    }

    /// 200 jobs posted 2 ms apart from a background thread; latency = run time − post time.
    private func latency() async {
        let latencies = Locked<[Double]>([])
        let count = 200
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                for index in 0..<count {
                    let posted = nowNanoseconds()
                    let job: @Sendable () -> Void = {
                        let late = Double(nowNanoseconds() - posted) / 1e6
                        if latencies.withLock({ $0.append(late); return $0.count }) == count { continuation.resume() }
                    }
                    if index.isMultiple(of: 2) { DispatchQueue.main.async(execute: job) } else {
                        WorkQueue.main.add(label: "latency") { _ in job() }
                    }
                    usleep(2000)
                }
            }
        }
        let values = latencies.withLock { $0 }
        figures.append(("latency_p50_ms", percentile(values, 0.5)))
        figures.append(("latency_p99_ms", percentile(values, 0.99)))
    }

    /// For one second the main queue is never empty: a job that burns 2 ms and re-posts itself, plus bursts of 20
    /// WorkQueue.main items of 0.1 ms posted every 5 ms from a background thread. A priority-120 (GDK_PRIORITY_REDRAW)
    /// source stands in for GTK's frames and counts how many it gets to run.
    private func flood() async {
        let stop = Locked(false)
        let floodJobs = Locked(0)
        var ticks = 0
        let start = nowNanoseconds()
        // Like GTK's frame clock, frames are due on a fixed 60 Hz cadence (a late frame does not push the next one
        // back); the 1 ms timeout only checks whether one is due.
        var due = start + 16_666_667
        GLibTimeout.start(priority: 120, intervalMilliseconds: 1) {
            let now = nowNanoseconds()
            if now >= due {
                ticks += 1
                due = max(due + 16_666_667, now + 8_000_000)
            }
            return !stop.withLock({ $0 })
        }
        @Sendable func again() {
            guard !stop.withLock({ $0 }) else { return }
            spin(2_000_000)
            floodJobs.withLock { $0 += 1 }
            DispatchQueue.main.async { again() }
        }
        DispatchQueue.main.async { again() }
        DispatchQueue.global().async {
            while !stop.withLock({ $0 }) {
                for _ in 0..<20 {
                    WorkQueue.main.add(label: "flood") { _ in spin(100_000); floodJobs.withLock { $0 += 1 } }
                }
                usleep(5000)
            }
        }
        try? await Task.sleep(for: .seconds(1))
        stop.withLock { $0 = true }
        let seconds = Double(nowNanoseconds() - start) / 1e9
        figures.append(("flood_frames_per_s", Double(ticks) / seconds))
        figures.append(("flood_jobs", Double(floodJobs.withLock { $0 })))
        // Let the flood's tail drain before measuring idle.
        try? await Task.sleep(for: .milliseconds(200))
    }

    /// A main-queue job runs a nested GLib loop for 100 ms (as a modal dialog would) while another main-queue job
    /// waits. The bridge's source may recurse, so the nested loop dispatches it: libdispatch must not run the waiting
    /// job out of turn (it drains one level at a time), the loop must not spin on the unread wake-up, and the job must
    /// run once the outer one returns.
    private func nested() async {
        let innerRan = Locked(false)
        let seen = Locked<(ranEarly: Bool, cpuPercent: Double)>((false, 0))
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.main.async {
                DispatchQueue.main.async {
                    innerRan.withLock { $0 = true }
                    continuation.resume()
                }
                let cpu = cpuNanoseconds(), start = nowNanoseconds()
                MainActor.assumeIsolated {
                    let loop = g_main_loop_new(nil, 0)
                    GLibTimeout.start(priority: 0, intervalMilliseconds: 100) {
                        g_main_loop_quit(loop)
                        return false
                    }
                    g_main_loop_run(loop)
                    g_main_loop_unref(loop)
                }
                let percent = Double(cpuNanoseconds() - cpu) / Double(nowNanoseconds() - start) * 100
                let early = innerRan.withLock { $0 }
                seen.withLock { $0 = (early, percent) }
            }
        }
        let (early, percent) = seen.withLock { $0 }
        figures.append(("nested_ran_out_of_turn", early ? 1 : 0))
        figures.append(("nested_loop_cpu_pct", percent))
    }

    /// CPU used while the loop has nothing to do.
    private func idle(milliseconds: Int) async {
        let before = cpuNanoseconds()
        let start = nowNanoseconds()
        try? await Task.sleep(for: .milliseconds(milliseconds))
        let cpu = Double(cpuNanoseconds() - before)
        let wall = Double(nowNanoseconds() - start)
        figures.append(("idle_cpu_pct", cpu / wall * 100))
    }
}
