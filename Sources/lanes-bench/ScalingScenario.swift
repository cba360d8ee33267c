import Dispatch
import Foundation
import Lanes

/// `scaling`: the core scenarios at 1, 2, 4, 8 and 16 threads (or `--threads 1,4,...`), Lanes beside Dispatch and a
/// TaskGroup held to the same width, plus, in a bench build with lock counters (`-Xswiftc -DLANES_LOCK_STATS`), how
/// long threads waited for the queue and node locks.
///
/// - `independent`: n empty items from one producer (per-item cost). Dispatch: `threads` serial queues on the global
///   queue, fed round-robin; TaskGroup: at most `threads` child tasks in flight.
/// - `fanout`: one gate, n dependents. Dispatch: each dependent a `notify` on the gate's `DispatchWorkItem`, spread
///   over `threads` serial queues.
/// - `chain` and `cancel-all`: see ScalingChain.swift.
/// - `width`: n items of ~20 µs arithmetic (speedup against a serial loop).
/// - `enumerate`: `concurrentMap(maxConcurrency:)` over 10,000 elements of ~10 µs; Dispatch: `concurrentPerform`
///   with `threads` iterations of n / threads elements; TaskGroup: `threads` child tasks of a slice each.
struct ScalingScenario {
    let repeats: Int
    let quick: Bool
    let threadCounts: [Int]

    /// The thread counts `--threads 1,2,4` names, or 1, 2, 4, 8, 16.
    static func threadCounts(from arguments: [String]) -> [Int] {
        guard let index = arguments.firstIndex(of: "--threads"), index + 1 < arguments.count else { return [1, 2, 4, 8, 16] }
        let counts = arguments[index + 1].split(separator: ",").compactMap { Int($0) }.filter { $0 >= 1 && $0 <= 1024 }
        return counts.isEmpty ? [1, 2, 4, 8, 16] : counts
    }

    func run() async -> [Row] {
        var rows: [Row] = []
        let widthRounds = roundsFor(micros: 20)
        let enumerateRounds = roundsFor(micros: 10)
        let serialWidth = serialSeconds(items: widthItems, rounds: widthRounds)
        let serialEnumerate = serialSeconds(items: enumerateItems, rounds: enumerateRounds)
        for threads in threadCounts { rows.append(await independent(threads)) }
        for threads in threadCounts { rows.append(await fanout(threads)) }
        for threads in threadCounts { rows.append(await chain(threads)) }
        for threads in threadCounts { rows.append(await cancelAll(threads)) }
        for threads in threadCounts { rows.append(await width(threads, rounds: widthRounds, serial: serialWidth)) }
        for threads in threadCounts {
            rows.append(await enumerate(threads, rounds: enumerateRounds, serial: serialEnumerate))
        }
        return rows
    }

    private var independentItems: Int { quick ? 20_000 : 200_000 }
    private var fanoutItems: Int { quick ? 4_000 : 16_000 }
    private var widthItems: Int { quick ? 1_000 : 4_000 }
    private var enumerateItems: Int { 10_000 }

    private func serialSeconds(items: Int, rounds: Int) -> Double {
        medianSync(repeats) {
            var sink: UInt64 = 0
            let start = now()
            for index in 0..<items { sink &+= mixWork(index, rounds: rounds) }
            let elapsed = seconds(since: start)
            return sink == 42 ? elapsed + 1e-12 : elapsed
        }
    }

    /// `threads` serial Dispatch queues on the global queue: Dispatch's way to run at most that many blocks at once.
    func dispatchLanes(_ threads: Int) -> [DispatchQueue] {
        (0..<threads).map { DispatchQueue(label: "scaling-\($0)", target: .global()) }
    }

    private func independent(_ threads: Int) async -> Row {
        let n = independentItems
        var row = Row(scenario: "scaling/independent", n: n)
        let (lanes, locks, wakeUps) = await lanesTimed(items: n) { await lanesIndependent(n, maxConcurrency: threads) }
        let dispatchSwitches = ContextSwitches.now()
        let dispatch = medianSync(repeats) {
            let queues = dispatchLanes(threads)
            let group = DispatchGroup()
            let start = now()
            for index in 0..<n { queues[index % threads].async(group: group) {} }
            group.wait()
            return seconds(since: start)
        }
        ContextSwitches.add(to: &row, dispatchSince: dispatchSwitches, runs: repeats, items: n)
        let taskGroup = await median(repeats) {
            let start = now()
            await taskGroupWindow(count: n, width: threads) { _ in }
            return seconds(since: start)
        }
        Self.addPerItem(to: &row, items: n, threads: threads, lanes: lanes, dispatch: dispatch, locks: locks,
                        wakeUps: wakeUps)
        row.time("taskgroup", taskGroup)
        row.count("taskgroup_per_item_us", taskGroup / Double(n) * 1e6)
        BatchTally.add(to: &row, runs: repeats, items: n)
        return row
    }

    private func fanout(_ threads: Int) async -> Row {
        let n = fanoutItems
        var row = Row(scenario: "scaling/fanout", n: n)
        let (lanes, locks, wakeUps) = await lanesTimed(items: n) { await lanesFanout(n, maxConcurrency: threads) }
        let dispatchSwitches = ContextSwitches.now()
        let dispatch = medianSync(repeats) {
            let queues = dispatchLanes(threads)
            let group = DispatchGroup()
            let start = now()
            let gate = DispatchWorkItem {}
            for index in 0..<n {
                group.enter()
                gate.notify(queue: queues[index % threads]) { group.leave() }
            }
            queues[0].async(execute: gate)
            group.wait()
            return seconds(since: start)
        }
        ContextSwitches.add(to: &row, dispatchSince: dispatchSwitches, runs: repeats, items: n)
        Self.addPerItem(to: &row, items: n, threads: threads, lanes: lanes, dispatch: dispatch, locks: locks,
                        wakeUps: wakeUps)
        BatchTally.add(to: &row, runs: repeats, items: n)
        return row
    }

    private func width(_ threads: Int, rounds: Int, serial: Double) async -> Row {
        let n = widthItems
        var row = Row(scenario: "scaling/width", n: n)
        let (lanes, locks, wakeUps) = await lanesTimed(items: n) {
            let queue = WorkQueue("width", maxConcurrency: threads)
            let start = now()
            for index in 0..<n { queue.add { _ in _ = mixWork(index, rounds: rounds) } }
            await queue.idle()
            return seconds(since: start)
        }
        let dispatch = medianSync(repeats) {
            let queues = dispatchLanes(threads)
            let group = DispatchGroup()
            let start = now()
            for index in 0..<n { queues[index % threads].async(group: group) { _ = mixWork(index, rounds: rounds) } }
            group.wait()
            return seconds(since: start)
        }
        let taskGroup = await median(repeats) {
            let start = now()
            await taskGroupWindow(count: n, width: threads) { _ = mixWork($0, rounds: rounds) }
            return seconds(since: start)
        }
        Self.addSpeedups(
            to: &row, threads: threads, serial: serial, lanes: lanes, dispatch: dispatch, taskGroup: taskGroup,
            locks: locks, wakeUps: wakeUps)
        return row
    }

    private func enumerate(_ threads: Int, rounds: Int, serial: Double) async -> Row {
        let n = enumerateItems
        var row = Row(scenario: "scaling/enumerate", n: n)
        var checks: Set<UInt64> = []
        let (lanes, locks, wakeUps) = await lanesTimed(items: n) {
            let start = now()
            let output = (try? (0..<n).concurrentMap(maxConcurrency: threads) { mixWork($0, rounds: rounds) }) ?? []
            let elapsed = seconds(since: start)
            checks.insert(output.reduce(0, &+))
            return elapsed
        }
        let dispatch = medianSync(repeats) {
            var output = [UInt64](repeating: 0, count: n)
            let start = now()
            output.withUnsafeMutableBufferPointer { buffer in
                let slots = Slots(base: buffer.baseAddress!)
                DispatchQueue.concurrentPerform(iterations: threads) { part in
                    for index in slice(part, of: threads, n) { slots.base[index] = mixWork(index, rounds: rounds) }
                }
            }
            let elapsed = seconds(since: start)
            checks.insert(output.reduce(0, &+))
            return elapsed
        }
        var taskGroupChecks: [UInt64] = []
        let taskGroup = await median(repeats) {
            let start = now()
            let total = await withTaskGroup(of: UInt64.self) { group in
                for part in 0..<threads {
                    group.addTask { slice(part, of: threads, n).reduce(0) { $0 &+ mixWork($1, rounds: rounds) } }
                }
                return await group.reduce(0, &+)
            }
            taskGroupChecks.append(total)
            return seconds(since: start)
        }
        checks.formUnion(taskGroupChecks)
        Self.addSpeedups(
            to: &row, threads: threads, serial: serial, lanes: lanes, dispatch: dispatch, taskGroup: taskGroup,
            locks: locks, wakeUps: wakeUps)
        if checks.count != 1 { row.notes.append("results differ between contenders") }
        return row
    }

    /// The figures of a row timed per item beside Dispatch: both times, each per item, their ratio, the lock waits and
    /// the wake-ups per item.
    static func addPerItem(to row: inout Row, items n: Int, threads: Int, lanes: Double, dispatch: Double,
                           locks: LockWaits, wakeUps: Double) {
        row.count("threads", Double(threads))
        row.time("lanes", lanes)
        row.time("dispatch", dispatch)
        row.count("lanes_per_item_us", lanes / Double(n) * 1e6)
        row.count("dispatch_per_item_us", dispatch / Double(n) * 1e6)
        row.count("lanes_vs_dispatch", lanes / dispatch)
        locks.add(to: &row, seconds: lanes, threads: threads)
        row.count("lanes_wake_ups_per_item", wakeUps)
    }

    private static func addSpeedups(
        to row: inout Row, threads: Int, serial: Double, lanes: Double, dispatch: Double, taskGroup: Double,
        locks: LockWaits, wakeUps: Double
    ) {
        row.count("threads", Double(threads))
        row.time("serial", serial)
        row.time("lanes", lanes)
        row.time("dispatch", dispatch)
        row.time("taskgroup", taskGroup)
        row.count("lanes_speedup", serial / lanes)
        row.count("dispatch_speedup", serial / dispatch)
        row.count("taskgroup_speedup", serial / taskGroup)
        row.count("lanes_vs_dispatch", lanes / dispatch)
        locks.add(to: &row, seconds: lanes, threads: threads)
        row.count("lanes_wake_ups_per_item", wakeUps)
    }

    /// The median of `repeats` runs of `body`, with the lock waits of those runs (per run) and the parked pool
    /// threads they woke per item (each wake a system call and a context switch).
    func lanesTimed(items: Int, _ body: () async -> Double) async -> (Double, LockWaits, Double) {
        LockWaits.reset()
        BatchTally.reset()
        let before = ThreadPoolExecutor.shared.statistics.wakeUps
        let switches = ContextSwitches.now()
        let seconds = await median(repeats, body)
        let wakeUps = ThreadPoolExecutor.shared.statistics.wakeUps - before
        ContextSwitches.noteLanes(since: switches, runs: repeats, items: items)
        return (seconds, LockWaits.sinceReset(runs: repeats), Double(wakeUps) / Double(repeats * max(1, items)))
    }
}

/// Runs `body(0..<count)` as child tasks of a TaskGroup, at most `width` at a time (a new one as each finishes).
func taskGroupWindow(count: Int, width: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    await withTaskGroup(of: Void.self) { group in
        var started = 0
        while started < min(width, count) {
            let index = started
            group.addTask { body(index) }
            started += 1
        }
        while await group.next() != nil, started < count {
            let index = started
            group.addTask { body(index) }
            started += 1
        }
    }
}

/// Part `part` of `parts` contiguous slices of `0..<count`.
private func slice(_ part: Int, of parts: Int, _ count: Int) -> Range<Int> {
    (count * part / parts)..<(count * (part + 1) / parts)
}
