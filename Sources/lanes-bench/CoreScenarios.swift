import Dispatch
import Foundation
import Lanes
import Synchronization

/// The core engine's scenarios: Lanes against Foundation's OperationQueue, DispatchQueue and a TaskGroup.
struct CoreScenarios {
    let repeats: Int
    let quick: Bool
    /// For profiling: skip the other contenders (`LANES_BENCH_ONLY=lanes`).
    var lanesOnly: Bool { ProcessInfo.processInfo.environment["LANES_BENCH_ONLY"] == "lanes" }
    /// For profiling: overrides a scenario's item count (`LANES_BENCH_N=2000`, e.g. under callgrind).
    func size(_ standard: Int) -> Int {
        ProcessInfo.processInfo.environment["LANES_BENCH_N"].flatMap { Int($0) } ?? standard
    }

    func independent() async -> Row {
        let n = size(quick ? 20_000 : 200_000)
        var row = Row(scenario: "independent", n: n)
        let lanes = await median(repeats) { await lanesIndependent(n) }
        if lanesOnly { return Row(scenario: "independent", n: n, seconds: [("lanes", lanes)]) }
        let dispatch = medianSync(repeats) {
            let queue = DispatchQueue(label: "independent", attributes: .concurrent)
            let group = DispatchGroup()
            let start = now()
            for _ in 0..<n { queue.async(group: group) {} }
            group.wait()
            return seconds(since: start)
        }
        let foundation = medianSync(repeats) {
            let queue = OperationQueue()
            let start = now()
            for _ in 0..<n { queue.addOperation {} }
            waitForOperations(queue)
            return seconds(since: start)
        }
        let taskGroup = await median(repeats) {
            let start = now()
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<n { group.addTask {} }
            }
            return seconds(since: start)
        }
        row.time("lanes", lanes)
        if lanesOnly { return row }
        row.time("dispatch", dispatch)
        row.time("foundation", foundation)
        row.time("taskgroup", taskGroup)
        row.count("lanes_per_item_us", lanes / Double(n) * 1e6)
        row.count("dispatch_per_item_us", dispatch / Double(n) * 1e6)
        row.count("lanes_vs_dispatch", lanes / dispatch)
        return row
    }

    func chain() async -> Row {
        let small = quick ? 2_000 : 8_000
        let large = quick ? 20_000 : 100_000
        var row = Row(scenario: "chain", n: small)
        let lanesSmall = await median(repeats) { await lanesChain(small) }
        // The pool's runner requests and thread wake-ups per link of the large chain (all its runs together).
        let pool = ThreadPoolExecutor.shared.statistics
        let lanesLarge = await median(repeats) { await lanesChain(large) }
        let after = ThreadPoolExecutor.shared.statistics
        let lanesIndependentLarge = await median(repeats) { await lanesIndependent(large) }
        let links = Double(max(1, repeats) * large)
        row.count("lanes_100k_chain_runners_per_link", Double(after.runners - pool.runners) / links)
        row.count("lanes_100k_chain_wake_ups_per_link", Double(after.wakeUps - pool.wakeUps) / links)
        if lanesOnly {
            row.time("lanes", lanesSmall)
            row.count("lanes_100k_chain_s", lanesLarge)
            row.count("lanes_100k_independent_s", lanesIndependentLarge)
            row.count("chain_vs_independent", lanesLarge / lanesIndependentLarge)
            return row
        }
        let dispatch = medianSync(repeats) {
            let queue = DispatchQueue(label: "chain", attributes: .concurrent)
            let items = (0..<small).map { _ in DispatchWorkItem {} }
            let done = DispatchSemaphore(value: 0)
            let start = now()
            for index in 0..<(small - 1) { items[index].notify(queue: queue, execute: items[index + 1]) }
            items[small - 1].notify(queue: queue) { done.signal() }
            queue.async(execute: items[0])
            done.wait()
            return seconds(since: start)
        }
        let foundation = medianSync(1) {
            let queue = OperationQueue()
            let start = now()
            var previous: BlockOperation?
            var operations: [BlockOperation] = []
            for _ in 0..<small {
                let operation = BlockOperation {}
                if let previous { operation.addDependency(previous) }
                operations.append(operation)
                previous = operation
            }
            queue.addOperations(operations, waitUntilFinished: true)
            return seconds(since: start)
        }
        row.time("lanes", lanesSmall)
        row.time("dispatch", dispatch)
        row.time("foundation", foundation)
        row.count("lanes_100k_chain_s", lanesLarge)
        row.count("lanes_100k_independent_s", lanesIndependentLarge)
        row.count("large_n", Double(large))
        row.count("chain_vs_independent", lanesLarge / lanesIndependentLarge)
        row.count("foundation_vs_lanes", foundation / lanesSmall)
        return row
    }

    private func lanesChain(_ n: Int) async -> Double {
        let queue = WorkQueue("chain")
        let start = now()
        var previous = queue.add { _ in }
        for _ in 1..<n { previous = queue.add(after: [previous]) { _ in } }
        await queue.idle()
        return seconds(since: start)
    }

    func fanout() async -> Row {
        let n = size(quick ? 4_000 : 16_000)
        let foundationN = quick ? 1_000 : 2_000
        var row = Row(scenario: "fanout", n: n)
        let lanes = await median(repeats) { await lanesFanout(n) }
        let foundation = medianSync(1) {
            let queue = OperationQueue()
            let start = now()
            let gate = BlockOperation {}
            let dependents = (0..<foundationN).map { _ in
                let operation = BlockOperation {}
                operation.addDependency(gate)
                return operation
            }
            queue.addOperations(dependents + [gate], waitUntilFinished: true)
            return seconds(since: start)
        }
        row.time("lanes", lanes)
        row.time("foundation", foundation)
        row.count("foundation_n", Double(foundationN))
        return row
    }

    func cancelAll() async -> Row {
        let n = quick ? 20_000 : 200_000
        let foundationN = quick ? 1_000 : 4_000
        var row = Row(scenario: "cancel-all", n: n)
        let lanesBodies = Atomic<Int>(0)
        var settled: [Double] = []
        let lanes = await median(repeats) {
            let queue = WorkQueue("cancel-all", maxConcurrency: 1)
            let release = DispatchSemaphore(value: 0)
            queue.add { _ in release.wait() }
            for _ in 0..<n { queue.add { _ in lanesBodies.add(1, ordering: .relaxed) } }
            let start = now()
            queue.cancelAll()
            let elapsed = seconds(since: start)
            release.signal()
            await queue.idle()
            // Until every cancelled handle has resolved (the sweep runs off the caller's thread).
            settled.append(seconds(since: start))
            return elapsed
        }
        let foundationBodies = Atomic<Int>(0)
        let foundation = medianSync(1) {
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            let release = DispatchSemaphore(value: 0)
            let head = BlockOperation { release.wait() }
            var previous: Foundation.Operation = head
            var operations: [Foundation.Operation] = [head]
            for _ in 0..<foundationN {
                let operation = BlockOperation { foundationBodies.add(1, ordering: .relaxed) }
                operation.addDependency(previous)
                operations.append(operation)
                previous = operation
            }
            queue.addOperations(operations, waitUntilFinished: false)
            let start = now()
            queue.cancelAllOperations()
            let elapsed = seconds(since: start)
            release.signal()
            waitForOperations(queue)
            return elapsed
        }
        let dispatchBodies = Atomic<Int>(0)
        let dispatch = medianSync(repeats) {
            let queue = DispatchQueue(label: "cancel-all")
            let release = DispatchSemaphore(value: 0)
            queue.async { release.wait() }
            let items = (0..<n).map { _ in DispatchWorkItem { dispatchBodies.add(1, ordering: .relaxed) } }
            for item in items { queue.async(execute: item) }
            let start = now()
            for item in items { item.cancel() }
            let elapsed = seconds(since: start)
            release.signal()
            queue.sync {}
            return elapsed
        }
        row.time("lanes", lanes)
        row.time("foundation", foundation)
        row.time("dispatch", dispatch)
        row.count("lanes_all_resolved_s", settled.sorted()[settled.count / 2])
        row.count("lanes_bodies_run", Double(lanesBodies.load(ordering: .relaxed)))
        row.count("foundation_bodies_run", Double(foundationBodies.load(ordering: .relaxed)))
        row.count("foundation_n", Double(foundationN))
        row.count("dispatch_bodies_run", Double(dispatchBodies.load(ordering: .relaxed)))
        return row
    }

    func width() async -> Row {
        let n = 64
        let limit = 8
        var row = Row(scenario: "width", n: n)
        let lanes = await median(repeats) {
            let queue = WorkQueue("width", maxConcurrency: limit)
            let start = now()
            for _ in 0..<n { queue.add { _ in blockingSleep(milliseconds: 50) } }
            await queue.idle()
            return seconds(since: start)
        }
        let foundation = medianSync(repeats) {
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = limit
            let start = now()
            for _ in 0..<n { queue.addOperation { blockingSleep(milliseconds: 50) } }
            waitForOperations(queue)
            return seconds(since: start)
        }
        let dispatch = medianSync(repeats) {
            let queue = DispatchQueue(label: "width", attributes: .concurrent)
            let slots = DispatchSemaphore(value: limit)
            let group = DispatchGroup()
            let start = now()
            for _ in 0..<n {
                slots.wait()
                queue.async(group: group) {
                    blockingSleep(milliseconds: 50)
                    slots.signal()
                }
            }
            group.wait()
            return seconds(since: start)
        }
        let taskGroup = await median(repeats) {
            let start = now()
            await taskGroupWindow(count: n, width: limit) { _ in blockingSleep(milliseconds: 50) }
            return seconds(since: start)
        }
        row.time("lanes", lanes)
        row.time("foundation", foundation)
        row.time("dispatch", dispatch)
        row.time("taskgroup", taskGroup)
        row.count("ideal_s", Double(n / limit) * 0.05)
        row.count("lanes_vs_ideal", lanes / (Double(n / limit) * 0.05))
        return row
    }
}

/// Seconds for one producer to add `n` empty items to a queue of width `maxConcurrency` and see them all finish.
func lanesIndependent(_ n: Int, maxConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount) async -> Double {
    let queue = WorkQueue("independent", maxConcurrency: maxConcurrency)
    let start = now()
    for _ in 0..<n { queue.add { _ in } }
    await queue.idle()
    let elapsed = seconds(since: start)
    BatchTally.add(queue)
    return elapsed
}

/// Seconds for `n` empty items that wait for one gate item to run on a queue of width `maxConcurrency`.
func lanesFanout(_ n: Int, maxConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount) async -> Double {
    let queue = WorkQueue("fanout", maxConcurrency: maxConcurrency)
    let start = now()
    let gate = WorkItem { _ in }
    for _ in 0..<n { queue.add(after: [gate]) { _ in } }
    try? queue.enqueue(gate)
    await queue.idle()
    let elapsed = seconds(since: start)
    BatchTally.add(queue)
    return elapsed
}
