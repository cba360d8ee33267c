import Foundation
import Lanes
import Synchronization

/// The queue engine's own stress: seeded, reproducible from its seed, and aimed at the promises of one queue rather
/// than at graphs (``GraphStress`` does those). Producer threads add plain, `async` and barrier items to two queues
/// at once — a wide one of 8 runners and a serial one — and re-prioritise their own recent items, while a controller
/// suspends, resumes and cancels all of either queue (odd seeds on a pool without a width, even ones on the shared
/// pool). The bodies and the runners' hooks record what happened in an atomic table; afterwards every rule is checked
/// from outside:
/// - every item finished once, and its body ran at most once (and did run if the item succeeded);
/// - never more bodies at once than the queue's limit, and a barrier's body alone;
/// - every item a producer added before a barrier that ran finished before it started, and every later one started
///   after it finished;
/// - an item added after another (a chain link: one in eight plain items waits for its producer's previous item on
///   that queue) started only after that one ended, and only if it succeeded;
/// - on the serial queue, items of one producer and one unchanged priority, chain links aside, started in the order
///   they were added;
/// - no item pending when a `cancelAll()` began (its `add` had returned) started after that `cancelAll()` returned;
/// - the queues end idle with settled books and their internal checks passing.
package struct QueueStress: Sendable {
    package let seed: UInt64
    package let itemsPerProducer: Int
    package let producers = 4
    /// The wide queue's limit: its runners.
    package let runners = 8
    package var hangTimeout: Duration = .seconds(60)

    package init(seed: UInt64, itemsPerProducer: Int) {
        self.seed = seed
        self.itemsPerProducer = itemsPerProducer
    }

    enum Counter {
        static let clock = 0, added = 1, moves = 2, producing = 3
    }

    enum Field {
        static let runs = 0, start = 1, end = 2, taken = 3, added = 4, queue = 5, barrier = 6, level = 7, moved = 8
        /// A chain link's dependency: its row + 1 (0: none).
        static let after = 9
        static let count = 10
    }

    /// Runs the stress on threads of its own and returns what happened; never hangs (a queue that does not become
    /// idle within `hangTimeout` is a violation).
    package func run() async -> QueueStressReport {
        await withCheckedContinuation { (continuation: CheckedContinuation<QueueStressReport, Never>) in
            let driver = Thread { continuation.resume(returning: self.drive()) }
            driver.name = "QueueStress driver"
            driver.start()
        }
    }

    private func drive() -> QueueStressReport {
        // Odd seeds run on a pool without a width (``PoolWidth/unlimited``: all 8 runners at once on any machine), even
        // seeds on the shared pool, whose width holds runners back until others end or block.
        let pool = seed % 2 == 1 ? ThreadPoolExecutor(maxThreads: 64, idleTimeout: 2, width: .unlimited) : .shared
        let queues = [
            WorkQueue("queue-stress-wide", maxConcurrency: runners, executor: pool),
            WorkQueue("queue-stress-serial", maxConcurrency: 1, executor: pool),
        ]
        let rows = producers * itemsPerProducer
        let table = AtomicTable(rows: rows, fields: Field.count)
        // Per queue: bodies running now, bodies started, the most at once, cancelAll()s begun and returned.
        let books = AtomicTable(rows: queues.count, fields: 5)
        // The tick clock (one atomic: its ticks follow happens-before), items added, priority changes, producers left.
        let counters = AtomicTable(rows: 1, fields: 4)
        counters.store(0, Counter.producing, producers)
        let log = ViolationLog()
        #if DEBUG || LANES_INTERNAL_CHECKS
        for (index, queue) in queues.enumerated() {
            queue._setRunnerHooks(RunnerHooks(taken: { label in
                guard let row = Int(label) else { return }
                table.store(row, Field.taken, books.load(index, 4) + 1)
            }))
        }
        #endif
        let handles = LockedValue<[Int: WorkItem<Int>]>([:])
        for producer in 0..<producers {
            let thread = Thread {
                produce(producer, queues, table, books, counters, handles, log)
                counters.decrement(0, Counter.producing)
            }
            thread.name = "QueueStress producer \(producer)"
            thread.start()
        }
        var report = control(queues, books, counters)
        report.priorityChanges = counters.load(0, Counter.moves)
        for queue in queues where !log.becomesIdle(queue, within: hangTimeout) { return finish(report, log) }
        verify(handles.withLock { $0 }, queues, table, books, log, &report)
        return finish(report, log)
    }

    /// One producer: adds its items, a barrier now and then, re-prioritising one of its recent items now and then.
    private func produce(
        _ producer: Int, _ queues: [WorkQueue], _ table: AtomicTable, _ books: AtomicTable, _ counters: AtomicTable,
        _ handles: LockedValue<[Int: WorkItem<Int>]>, _ log: ViolationLog
    ) {
        var rng = SplitMix64(seed: seed &+ UInt64(producer) &* 0x1_0000_0001)
        var recent: [(row: Int, item: WorkItem<Int>)] = []
        var last: [(row: Int, item: WorkItem<Int>)?] = [nil, nil]  // per queue, this producer's previous plain item
        for index in 0..<itemsPerProducer {
            let row = producer * itemsPerProducer + index
            let q = rng.next() % 10 < 7 ? 0 : 1
            let queue = queues[q]
            let limit = q == 0 ? runners : 1
            let roll = rng.next() % 100
            // A chain link (one in eight plain items) waits for this producer's previous item on the queue, at its
            // priority (a higher one would lend itself to it and reorder it among its peers).
            let link = roll >= 7 && rng.next() % 8 == 0 ? last[q] : nil
            let picked = WorkPriority.allCases.randomElement(using: &rng)!
            let priority = link.map { WorkPriority(rawValue: table.load($0.row, Field.level))! } ?? picked
            let barrier = roll < 2
            table.store(row, Field.queue, q)
            table.store(row, Field.barrier, barrier ? 1 : 0)
            table.store(row, Field.level, priority.rawValue)
            // Mostly tiny bodies (the engine's own cost dominates), one in ten long enough for runners to overlap.
            let spin = rng.next() % 10 == 0 ? 20_000 + Int(rng.next() % 20_000) : Int(rng.next() % 200)
            let body: @Sendable () -> Int = {
                let running = books.increment(q, 0) + 1
                if running > limit { log.record("\(queue.name): \(running) bodies at once, limit \(limit)") }
                if barrier, running != 1 { log.record("barrier \(row) ran beside \(running - 1) other bodies") }
                books.increment(q, 1)
                table.store(row, Field.start, counters.increment(0, Counter.clock) + 1)
                if table.increment(row, Field.runs) != 0 { log.record("item \(row) ran twice") }
                var sink = 0
                for step in 0..<spin { sink &+= step }
                table.store(row, Field.end, counters.increment(0, Counter.clock) + 1)
                books.raise(q, 2, toAtLeast: running)
                books.decrement(q, 0)
                return sink
            }
            let item: WorkItem<Int>
            if barrier {
                item = queue.addBarrier(label: "\(row)", priority: priority) { _ in body() }
            } else if roll < 7 {
                item = queue.add(label: "\(row)", priority: priority) { _ async in
                    let value = body()
                    await Task.yield()
                    return value
                }
            } else if let previous = link {
                // The runner that ends `previous` lists it in its next decision (RunnerBooks.next).
                table.store(row, Field.after, previous.row + 1)
                item = queue.add(label: "\(row)", priority: priority, after: [previous.item], policy: .cancel) { _ in
                    body()
                }
            } else {
                item = queue.add(label: "\(row)", priority: priority) { _ in body() }
            }
            if !barrier { last[q] = (row, item) }
            // Pending from here on for every cancelAll() that begins later.
            table.store(row, Field.added, books.load(q, 3) + 1)
            handles.withLock { $0[row] = item }
            counters.increment(0, Counter.added)
            recent.append((row, item))
            if recent.count > 16 { recent.removeFirst() }
            if rng.next() % 40 == 0, let pick = recent.randomElement(using: &rng) {
                table.store(pick.row, Field.moved, 1)
                // A link's new priority is lent to the items it waits for, if higher: they moved too.
                var after = table.load(pick.row, Field.after) - 1
                while after >= 0 {
                    table.store(after, Field.moved, 1)
                    after = table.load(after, Field.after) - 1
                }
                pick.item.priority = WorkPriority.allCases.randomElement(using: &rng)!
                counters.increment(0, Counter.moves)
            }
        }
    }

    /// The controller: every few hundred items added, suspends a queue (resumed a while later: two times in three) or
    /// cancels all of it.
    private func control(
        _ queues: [WorkQueue], _ books: AtomicTable, _ counters: AtomicTable
    ) -> QueueStressReport {
        var report = QueueStressReport()
        var rng = SplitMix64(seed: seed ^ 0xC0_4712_0113)
        var suspended: [Int: Int] = [:]  // queue -> the added count at which it resumes
        var next = 150
        while counters.load(0, Counter.producing) > 0 {
            let now = counters.load(0, Counter.added)
            for (q, at) in suspended where now >= at {
                queues[q].resume()
                suspended[q] = nil
            }
            guard now >= next else {
                Thread.sleep(forTimeInterval: 0.0002)
                continue
            }
            next = now + 200 + Int(rng.next() % 400)
            let q = Int(rng.next() % 2)
            if rng.next() % 3 != 0, suspended[q] == nil {
                queues[q].suspend()
                suspended[q] = now + 50 + Int(rng.next() % 100)
                report.suspends += 1
            } else {
                // Begun before the call, returned after it: an item whose producer read "begun" after its add returned
                // was pending when every later cancelAll() began.
                books.increment(q, 3)
                queues[q].cancelAll()
                books.increment(q, 4)
                report.cancelAlls += 1
            }
        }
        for q in suspended.keys { queues[q].resume() }
        return report
    }

    /// Checks every rule from outside, once the queues are idle.
    private func verify(
        _ handles: [Int: WorkItem<Int>], _ queues: [WorkQueue], _ table: AtomicTable, _ books: AtomicTable,
        _ log: ViolationLog, _ report: inout QueueStressReport
    ) {
        report.items = handles.count
        for row in 0..<(producers * itemsPerProducer) {
            guard let item = handles[row] else {
                log.record("item \(row) was never added")
                continue
            }
            let runs = table.load(row, Field.runs), state = item.state
            report.ran += runs
            if table.load(row, Field.barrier) == 1 && runs == 1 { report.barriersRan += 1 }
            switch state {
            case .succeeded: report.succeeded += 1
            case .cancelled: report.cancelled += 1
            default: log.record("item \(row) ended \(state)")
            }
            if state == .succeeded, runs != 1 { log.record("item \(row) succeeded with \(runs) runs") }
            if runs == 0, state != .cancelled { log.record("item \(row) never ran but ended \(state)") }
            if runs == 1, table.load(row, Field.taken) > table.load(row, Field.added) {
                log.record("item \(row) was pending when a cancelAll() began and started after it returned")
            }
            let after = table.load(row, Field.after) - 1
            if runs == 1, after >= 0, table.load(row, Field.start) < table.load(after, Field.end) {
                log.record("chain link \(row) started before its dependency \(after) ended")
            }
            if runs == 1, after >= 0, handles[after]?.state != .succeeded {
                log.record("chain link \(row) ran though its dependency \(after) did not succeed")
            }
        }
        for producer in 0..<producers {
            let rows = (producer * itemsPerProducer)..<((producer + 1) * itemsPerProducer)
            for q in queues.indices {
                let mine = rows.filter { table.load($0, Field.queue) == q && table.load($0, Field.runs) == 1 }
                checkBarriers(mine, table, log)
                if q == 1 { checkFIFO(mine, table, log) }
            }
        }
        for (q, queue) in queues.enumerated() {
            report.mostAtOnce.append(books.load(q, 2))
            queue._checkInvariants()
            let counts = queue.counts
            if counts.unfinished != 0 || counts.running != 0 || counts.ready != 0 {
                log.record("\(queue.name) idle with unsettled books: \(counts)")
            }
        }
    }

    /// Of one producer's items on one queue that ran (in the order added): those before a barrier ended before it
    /// started, those after it started after it ended.
    private func checkBarriers(_ rows: [Int], _ table: AtomicTable, _ log: ViolationLog) {
        var barrierEnd = 0, latestEnd = 0
        for row in rows {
            let start = table.load(row, Field.start), end = table.load(row, Field.end)
            if start < barrierEnd { log.record("item \(row) started before the barrier before it ended") }
            if table.load(row, Field.barrier) == 1 {
                if start < latestEnd { log.record("barrier \(row) started before an earlier item ended") }
                barrierEnd = end
            }
            latestEnd = max(latestEnd, end)
        }
    }

    /// Of one producer's items on the serial queue that ran, those of one priority never changed started in the order
    /// added.
    private func checkFIFO(_ rows: [Int], _ table: AtomicTable, _ log: ViolationLog) {
        var lastStart = [Int](repeating: 0, count: WorkPriority.allCases.count)
        for row in rows where table.load(row, Field.moved) == 0 && table.load(row, Field.after) == 0 {
            let level = table.load(row, Field.level), start = table.load(row, Field.start)
            if start < lastStart[level] { log.record("serial item \(row) started before an earlier item of its priority") }
            lastStart[level] = start
        }
    }

    private func finish(_ report: QueueStressReport, _ log: ViolationLog) -> QueueStressReport {
        var report = report
        (report.violationCount, report.violations) = log.snapshot
        return report
    }
}

/// The outcome of a ``QueueStress`` run: what it did, and what broke (nothing, when `violations` is empty).
package struct QueueStressReport: Sendable, CustomStringConvertible {
    package var items = 0
    package var ran = 0
    package var succeeded = 0
    package var cancelled = 0
    package var barriersRan = 0
    package var cancelAlls = 0
    package var suspends = 0
    package var priorityChanges = 0
    /// The most bodies that ran at once on each queue (wide, serial).
    package var mostAtOnce: [Int] = []
    package var violationCount = 0
    package var violations: [String] = []

    package init() {}

    package var description: String {
        var text = "\(items) items: \(ran) bodies ran (\(barriersRan) barriers), \(succeeded) succeeded, \(cancelled) cancelled; "
        text += "\(cancelAlls) cancelAll, \(suspends) suspends, \(priorityChanges) priority changes; "
        text += "most at once \(mostAtOnce); \(violationCount) violations"
        for violation in violations { text += "\n  - " + violation }
        return text
    }
}
