import Dispatch
import Foundation
import Lanes
import Synchronization

/// The `main-latency` scenario: how late a thread at the process's normal level (the main thread's level: a UI
/// thread waiting for its next event) wakes from 1 ms sleeps while CPU-bound items saturate every core, N = cores and
/// 4 × cores, at `background` and `utility`: on Lanes and on `DispatchQueue.global(qos:)` of the matching QoS, beside
/// the idle machine's floor measured in the same run. One row for the floor ("main-latency/idle", all its samples),
/// then one per level and N with the floor's and both contenders' p50 / p99 / max over 2,000 sleeps each, Lanes' p99
/// over Dispatch's and over the floor.
///
/// The sleeper is a thread of its own at the process's nice value rather than the process's main thread, which a
/// Swift program with an `async` top level hands to libdispatch; what the measurement needs is a thread at the
/// normal level that sleeps and must wake on time.
func mainLatencyScenario(quick: Bool) async -> [Row] {
    let samples = quick ? 500 : 2000
    let rounds = 5
    let cores = ProcessInfo.processInfo.activeProcessorCount
    var allIdle: [Double] = []
    var rows: [Row] = []
    for priority in [WorkPriority.background, .utility] {
        for n in [cores, 4 * cores] {
            // The machine is shared: the three contenders take turns in short rounds (in a rotating order), so
            // whatever else runs meanwhile falls on all three alike; percentiles are over every round's samples.
            var idle: [Double] = []
            var lanes: [Double] = []
            var dispatch: [Double] = []
            for round in 0..<rounds {
                for turn in 0..<3 {
                    switch (round + turn) % 3 {
                    case 0: idle += await sleeperLateness(samples: samples / rounds)
                    case 1: lanes += await underLoad(.lanes(priority), items: n, samples: samples / rounds)
                    default: dispatch += await underLoad(.dispatch(priority.dispatchQoS), items: n, samples: samples / rounds)
                    }
                }
            }
            allIdle += idle
            var row = Row(scenario: "main-latency/\(priority) ×\(n)", n: n)
            for (name, values) in [("idle", idle), ("lanes", lanes), ("dispatch", dispatch)] {
                row.count("\(name)_p50_ms", quantile(values, 0.5))
                row.count("\(name)_p99_ms", quantile(values, 0.99))
                row.count("\(name)_max_ms", values.max() ?? 0)
            }
            let lanesP99 = quantile(lanes, 0.99)
            let dispatchP99 = quantile(dispatch, 0.99)
            row.count("lanes_vs_dispatch_p99", dispatchP99 > 0 ? lanesP99 / dispatchP99 : 0)
            row.count("lanes_over_idle_p99_ms", lanesP99 - quantile(idle, 0.99))
            row.count("loadavg_1m", loadAverage())
            rows.append(row)
        }
    }
    var floor = Row(scenario: "main-latency/idle", n: allIdle.count)
    floor.count("p50_ms", quantile(allIdle, 0.5))
    floor.count("p99_ms", quantile(allIdle, 0.99))
    floor.count("max_ms", allIdle.max() ?? 0)
    floor.count("loadavg_1m", loadAverage())
    return [floor] + rows
}

/// Who runs the spinning items.
enum LoadRunner {
    case lanes(WorkPriority)
    case dispatch(DispatchQoS.QoSClass)
}

/// Spinning items that keep every core busy until `stop()`.
final class Saturation: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let running = Atomic<Int>(0)
    private let queue: WorkQueue?

    init(_ runner: LoadRunner, items: Int) {
        if case .lanes = runner {
            queue = WorkQueue("saturate", maxConcurrency: items)
        } else {
            queue = nil
        }
        for _ in 0..<items {
            switch runner {
            case .lanes(let priority): queue?.add(priority: priority) { [self] _ in spin() }
            case .dispatch(let qos): DispatchQueue.global(qos: qos).async { [self] in spin() }
            }
        }
    }

    /// Waits until at least `count` items spin (libdispatch runs only about as many as there are cores).
    func started(atLeast count: Int) {
        while running.load(ordering: .acquiring) < count { usleep(1000) }
    }

    func stop() async {
        stopped.store(true, ordering: .releasing)
        if let queue { await queue.idle() }
        while running.load(ordering: .acquiring) > 0 { try? await Task.sleep(for: .milliseconds(1)) }
    }

    private func spin() {
        running.add(1, ordering: .releasing)
        var x: UInt64 = 1
        while !stopped.load(ordering: .relaxed) {
            for _ in 0..<10_000 { x = x &* 6364136223846793005 &+ 1442695040888963407 }
        }
        blackHole(x)
        running.subtract(1, ordering: .releasing)
    }
}

@inline(never)
func blackHole(_ value: UInt64) { if value == 42 { print("") } }

private func underLoad(_ runner: LoadRunner, items: Int, samples: Int) async -> [Double] {
    let load = Saturation(runner, items: items)
    load.started(atLeast: min(items, ProcessInfo.processInfo.activeProcessorCount))
    let lateness = await sleeperLateness(samples: samples)
    await load.stop()
    return lateness
}

/// Milliseconds each of `samples` 1 ms sleeps overslept, on a new thread at the process's normal level.
func sleeperLateness(samples: Int) async -> [Double] {
    await withCheckedContinuation { (continuation: CheckedContinuation<[Double], Never>) in
        let thread = Thread {
            var lateness: [Double] = []
            lateness.reserveCapacity(samples)
            var request = timespec(tv_sec: 0, tv_nsec: 1_000_000)
            for _ in 0..<samples {
                let start = now()
                nanosleep(&request, nil)
                lateness.append(Double(now() - start) / 1e6 - 1)
            }
            continuation.resume(returning: lateness)
        }
        thread.start()
    }
}

/// The 1-minute load average (the machine is shared), or -1 where /proc is missing.
func loadAverage() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8),
        let first = text.split(separator: " ").first, let value = Double(first)
    else { return -1 }
    return value
}
