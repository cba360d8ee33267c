// A child process for the main-thread tests (Tests/LanesTests/MainThreadTests.swift). swift-testing runs tests off
// the main thread, so the tests start this program, whose real main thread runs the loop named by its argument, and
// read what it prints: one line per kind of main-queue work, telling whether it ran on the main thread.
import Dispatch
import Foundation
import Lanes
import LanesTesting
import Synchronization

let mode = CommandLine.arguments.dropFirst().first ?? ""
let expected = ["dispatch-main", "mainactor-run", "mainactor-task", "onMainCompletion", "workqueue-main"]
let results = Mutex<[String: Bool]>([:])

func record(_ kind: String, _ ok: Bool) {
    let count = results.withLock { results in
        results[kind] = ok
        return results.count
    }
    guard count == expected.count else { return }
    if mode == "dispatchmain" { report() }
    MainLoop.stop()
}

func report() -> Never {
    let final = results.withLock { $0 }
    for kind in expected { print("\(kind) main=\(final[kind].map(String.init) ?? "missing")") }
    exit(expected.allSatisfy { final[$0] == true } ? 0 : 1)
}

var isComplete: Bool { results.withLock { $0.count } == expected.count }

@MainActor final class Cell {
    var value: Int?
    func bind(_ item: WorkItem<Int>) {
        item.onMainCompletion { result in
            self.value = try? result.get()  // main-actor state, no assumeIsolated
            record("onMainCompletion", Thread.isMainThread && self.value == 42)
        }
    }
}

@MainActor func schedule(_ cell: Cell) {
    WorkQueue.main.add(label: "probe") { _ in record("workqueue-main", Thread.isMainThread) }
    DispatchQueue.main.async { record("dispatch-main", Thread.isMainThread) }
    Task { @MainActor in record("mainactor-task", Thread.isMainThread) }
    Task.detached { await MainActor.run { record("mainactor-run", Thread.isMainThread) } }
    cell.bind(WorkQueue("probe background", maxConcurrency: 1).add(label: "answer") { _ in 6 * 7 })
}

// Never hang a test: give up after 20 s.
DispatchQueue.global().asyncAfter(deadline: .now() + 20) {
    print("TIMEOUT", results.withLock { $0 })
    exit(3)
}

func cpuMilliseconds() -> Int { Int(ResourceUsage.now().cpuSeconds * 1000) }

/// An app object as the docs write one: it owns its queue and its loader, and hears results through [weak self].
@MainActor final class Greeter {
    let work = WorkQueue("greeter", maxConcurrency: 1)
    let gate = Gate()   // the work waits until the body has returned, so the owner must outlive the body
    func start() {
        let gate = self.gate
        work.add { _ in
            gate.wait()
            return "hello from a worker"
        }.onMainCompletion { [weak self] result in
            guard self != nil else { return }
            print("owner-result \((try? result.get()) ?? "failed") main=\(Thread.isMainThread)")
            MainLoop.stop()
        }
        DispatchQueue.main.async { gate.open() }   // runs once the loop drains: after the body returned
    }
}

let cell = Cell()
print("mode \(mode) main=\(Thread.isMainThread)")
switch mode {
case "mainloop":
    MainLoop.run { schedule(cell) }
case "mainloop-until":
    schedule(cell)
    MainLoop.run(until: isComplete)
case "runloop":
    schedule(cell)
    while !isComplete { _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 1)) }
case "pump":
    // Synchronous driving: work enqueued from the main thread runs in the next drain, before it returns.
    WorkQueue.main.add(label: "sync") { _ in print("sync-drain main=\(Thread.isMainThread)") }
    MainQueueDriver.drain()
    print("after-drain")
    schedule(cell)
    if !MainQueuePump.run(until: { isComplete }, timeout: .seconds(15)) { print("pump timed out") }
case "stop-from-worker":
    // stop() from another thread wakes the sleeping loop, and run returns to its caller.
    MainLoop.run { DispatchQueue.global().async { MainLoop.stop() } }
    print("returned main=\(Thread.isMainThread)")
    exit(0)
case "idle":
    // An idle loop sleeps: 300 ms of waiting must cost almost no CPU (a loop that drained without reading the
    // eventfd would spin at 100%).
    let before = cpuMilliseconds(), wakeupsBefore = MainLoop.wakeupCount
    MainLoop.run {
        WorkQueue.main.add { _ in }   // wakes the loop once: the wake-up must be acknowledged, not seen forever
        DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(300)) { MainLoop.stop() }
    }
    print("idle-cpu-ms \(cpuMilliseconds() - before)")
    print("idle-wakeups \(MainLoop.wakeupCount - wakeupsBefore)")
    exit(0)
case "signal":
    // A SignalSource made on the main thread under MainLoop: SIGUSR1 reaches a main-actor handler on the main thread.
    let source = SignalSource(signals: [SIGUSR1], onMain: { number in
        print("signal \(number == SIGUSR1 ? "usr1" : "other") main=\(Thread.isMainThread)")
        MainLoop.stop()
    })
    MainLoop.run { source.onReady { _ = kill(getpid(), SIGUSR1) } }
    source.cancel()
    print("cancelled \(source.isCancelled)")
    exit(0)
case "order":
    // One background thread enqueues WorkQueue.main items, DispatchQueue.main blocks and @MainActor jobs in turn,
    // all at the default priority; the main loop must run them in exactly that order.
    let total = 6_000
    let ran = LockedValue<[Int]>([])
    @Sendable func ranStep(_ step: Int) {
        let count = ran.withLock { ran in
            ran.append(step)
            return ran.count
        }
        if count == total { MainLoop.stop() }
    }
    MainLoop.run {
        Thread.detachNewThread {
            for step in 0..<total {
                switch step % 3 {
                case 0: WorkQueue.main.add(label: "step \(step)") { _ in ranStep(step) }
                case 1: DispatchQueue.main.async { ranStep(step) }
                default: Task { @MainActor in ranStep(step) }
                }
            }
        }
    }
    let order = ran.withLock { $0 }
    let inversions = zip(order, order.dropFirst()).filter { $0 > $1 }
    let kinds = ["WorkQueue.main", "DispatchQueue.main", "@MainActor"]
    for (before, after) in inversions.prefix(5) {
        print("inversion: step \(before) (\(kinds[before % 3])) ran before step \(after) (\(kinds[after % 3]))")
    }
    print("order ran=\(order.count) out-of-order=\(inversions.count)")
    exit(0)
case "flood":
    // 20 WorkQueue.main items, then 20,000 DispatchQueue.main blocks: no item may wait for a block enqueued after it.
    let blocksRun = LockedValue(0)
    let items = LockedValue<[Int]>([])  // how many blocks had run when each item ran
    @Sendable func stopWhenDone() {
        if blocksRun.withLock({ $0 }) == 20_000, items.withLock({ $0.count }) == 20 { MainLoop.stop() }
    }
    MainLoop.run {
        for _ in 0..<20 {
            WorkQueue.main.add(label: "flooded item") { _ in
                let before = blocksRun.withLock { $0 }
                items.withLock { $0.append(before) }
                stopWhenDone()
            }
        }
        for _ in 0..<20_000 {
            DispatchQueue.main.async {
                blocksRun.withLock { $0 += 1 }
                stopWhenDone()
            }
        }
    }
    let seen = items.withLock { $0 }
    print("flood items=\(seen.count) blocks-before-items=\(seen.max() ?? -1)")
    exit(0)
case "owner":
    // The documented pattern, as MainLoop's doc comment writes it: the body returns the object that owns the work,
    // whose [weak self] handler must still find it when the result arrives, after the body has returned.
    MainLoop.run {
        let greeter = Greeter()
        greeter.start()
        return greeter
    }
    print("owner-returned")
    exit(0)
case "dispatchmain":
    // The counter-example: dispatchMain() ends the main thread and a worker drains the main queue.
    schedule(cell)
    dispatchMain()
default:
    print("usage: lanes-main-probe mainloop|mainloop-until|runloop|pump|dispatchmain|stop-from-worker|idle|signal|order|flood|owner")
    exit(2)
}
report()
