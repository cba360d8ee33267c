import Dispatch
import Foundation
import Lanes
import Synchronization

/// A random-graph stress run of the engine: items on four queues of different widths, joined by plain and typed
/// edges (typed consumers own their producers; some producers are kept), while the driver cancels items, cancels whole queues, re-prioritises, changes limits and suspends and
/// resumes queues. Checks that every item finishes exactly once, that no body runs before its dependencies finished
/// (or despite a failed one under `.cancel`/`.skip`), that no body of an item cancelled while pending runs (alone
/// or by `cancelAll()`), that a finished item's `isCancelled` agrees with its state, that the books close, and that
/// nothing hangs. The same seed makes the same graph and the same operations (thread timing still varies).
///
/// ```swift
/// let report = await GraphStress(seed: 42, items: 100_000).run()
/// #expect(report.violations.isEmpty, "\(report)")
/// ```
package struct GraphStress: Sendable {
    package var seed: UInt64
    package var items: Int
    /// How many unfinished items the driver allows before it waits for some to finish.
    package var inFlight = 4_000
    /// How long the run may go without an item finishing before it is reported as hung.
    package var hangTimeout: Duration = .seconds(60)

    package init(seed: UInt64, items: Int) {
        self.seed = seed
        self.items = items
    }

    /// The fields of the per-item table.
    enum Field {
        static let finishes = 0, bodies = 1, admitGeneration = 2, takeGeneration = 3, cancelledPending = 4
        static let count = 5
    }

    struct Failure: Error {}

    struct Dependency: Sendable {
        let item: WorkItem<Int>
        let policy: DependencyPolicy
    }

    /// Runs the stress and returns what happened; never hangs (a stall past `hangTimeout` is a violation). The
    /// driver runs on a thread of its own: it adds items without pause, and on Swift's cooperative pool (one thread
    /// per core) it would starve every other test running beside it.
    package func run() async -> GraphStressReport {
        await withCheckedContinuation { (continuation: CheckedContinuation<GraphStressReport, Never>) in
            let driver = Thread { continuation.resume(returning: self.drive()) }
            driver.name = "GraphStress driver"
            driver.start()
        }
    }

    private func drive() -> GraphStressReport {
        let widths = [1, 2, 3, 8]
        let queues = widths.indices.map { WorkQueue("stress-\($0)", maxConcurrency: widths[$0]) }
        let table = AtomicTable(rows: items, fields: Field.count)
        // Bumped after each cancelAll() of a queue returns: an item taken in a later generation than the one it
        // was added in was pending when a cancel-all returned, and must not run.
        let generations = AtomicTable(rows: queues.count, fields: 1)
        let finished = Atomic<Int>(0)
        let log = ViolationLog()
        #if DEBUG || LANES_INTERNAL_CHECKS
        for (index, queue) in queues.enumerated() {
            queue._setRunnerHooks(RunnerHooks(taken: { label in
                guard let row = Int(label) else { return }
                table.store(row, Field.takeGeneration, generations.load(index, 0) + 1)
            }))
        }
        #endif
        var report = GraphStressReport()
        var rng = SplitMix64(seed: seed)
        var handles: [WorkItem<Int>] = []
        handles.reserveCapacity(items)
        var suspended = Array(repeating: false, count: queues.count)

        func resumeAll() {
            for index in queues.indices where suspended[index] {
                queues[index].resume()
                suspended[index] = false
            }
        }

        for row in 0..<items {
            if row - finished.load(ordering: .relaxed) > inFlight {
                resumeAll()
                let mark = finished.load(ordering: .relaxed)
                // Every item made so far may have finished meanwhile (cancels cascade fast): then there is nothing
                // to wait for, and waiting for one more would report a hang that is the driver's.
                if mark < row, !progressed(past: mark, finished, queues: queues, log: log) { return finish(report, log) }
            }
            let queueIndex = Int(rng.next() % UInt64(queues.count))
            let queue = queues[queueIndex]
            table.store(row, Field.admitGeneration, generations.load(queueIndex, 0) + 1)
            let item = makeItem(row, on: queue, after: handles, &rng, table, log, &report)
            item.onFinishInline { _ in
                if table.increment(row, Field.finishes) != 0 { log.record("item \(row) finished twice") }
                finished.add(1, ordering: .relaxed)
            }
            // Some producers are kept (they run on when their consumers leave); the others are owned by their
            // typed consumers, and cancelling those cancels them.
            if rng.next() % 20 == 0 {
                item.keep()
                report.kept += 1
            }
            handles.append(item)
            report.items += 1
            operate(&rng, handles: handles, queues: queues, generations: generations, table: table,
                    suspended: &suspended, &report)
        }
        resumeAll()
        while finished.load(ordering: .relaxed) < items {
            let mark = finished.load(ordering: .relaxed)
            if !progressed(past: mark, finished, queues: queues, log: log) { return finish(report, log) }
        }
        for queue in queues where !log.becomesIdle(queue, within: hangTimeout) { return finish(report, log) }
        #if DEBUG || LANES_INTERNAL_CHECKS
        for queue in queues { queue._setRunnerHooks(nil) }
        #endif
        verify(handles, queues: queues, table: table, log: log, &report)
        return finish(report, log)
    }

    private func finish(_ report: GraphStressReport, _ log: ViolationLog) -> GraphStressReport {
        var report = report
        let (count, first) = log.snapshot
        report.violationCount = count
        report.violations = first
        return report
    }

    /// Waits until more than `mark` items finished; false (and a violation naming the queues' books) when none
    /// finished within the hang timeout.
    private func progressed(past mark: Int, _ finished: borrowing Atomic<Int>, queues: [WorkQueue], log: ViolationLog) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: hangTimeout)
        while finished.load(ordering: .relaxed) <= mark {
            if clock.now >= deadline {
                let books = queues.map { "\($0.name): \($0.counts), suspended \($0.isSuspended), limit \($0.maxConcurrency)" }
                log.record("hang: no item finished in \(hangTimeout) (\(mark) finished); " + books.joined(separator: "; "))
                return false
            }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return true
    }

    /// Makes item `row`: a plain, async, callback or barrier body, with random plain or typed edges to recent items.
    private func makeItem(
        _ row: Int, on queue: WorkQueue, after handles: [WorkItem<Int>], _ rng: inout SplitMix64, _ table: AtomicTable,
        _ log: ViolationLog, _ report: inout GraphStressReport
    ) -> WorkItem<Int> {
        let label = String(row)
        let priority = WorkPriority(rawValue: Int(rng.next() % UInt64(WorkPriority.allCases.count)))!
        let shape = rng.next() % 1000
        let fails = rng.next() % 100 < 3
        let window = min(handles.count, 2_000)
        if shape < 2 {
            report.barriers += 1
            return queue.addBarrier(label: label, priority: priority) { _ in
                Self.enter(row, [], table, log)
                return row
            }
        }
        if shape < 150, window > 0 {
            report.typedEdges += 1
            let inputRow = handles.count - 1 - Int(rng.next() % UInt64(window))
            let input = handles[inputRow]
            let policy: InputPolicy = rng.next() % 2 == 0 ? .cancel : .skip
            let dependencies = [Dependency(item: input, policy: policy == .cancel ? .cancel : .skip)]
            return queue.add(consuming: input, policy: policy, label: label, priority: priority) { value, _ in
                Self.enter(row, dependencies, table, log)
                if value != inputRow { log.record("item \(row) got \(value) from item \(inputRow)") }
                if fails { throw Failure() }
                return row
            }
        }
        var chosen: [Dependency] = []
        let policy: DependencyPolicy = [.run, .cancel, .skip][Int(rng.next() % 3)]
        for _ in 0..<(window == 0 ? 0 : Int(rng.next() % 4)) {
            chosen.append(Dependency(item: handles[handles.count - 1 - Int(rng.next() % UInt64(window))], policy: policy))
        }
        let dependencies = chosen
        report.plainEdges += dependencies.count
        let after = dependencies.map(\.item)
        let spin = Int(rng.next() % 64)
        switch shape {
        case ..<900:
            return queue.add(label: label, priority: priority, after: after, policy: policy) { ctx in
                Self.enter(row, dependencies, table, log)
                var sum = 0
                for step in 0..<spin where !ctx.isCancelled { sum &+= step }
                if fails { throw Failure() }
                return row + (sum & 0)
            }
        case ..<960:
            return queue.add(label: label, priority: priority, after: after, policy: policy) { ctx async throws in
                Self.enter(row, dependencies, table, log)
                await Task.yield()
                if fails { throw Failure() }
                try ctx.checkCancellation()
                return row
            }
        default:
            return queue.add(label: label, priority: priority, after: after, policy: policy, callback: { _, finish in
                Self.enter(row, dependencies, table, log)
                let result: Result<Int, any Error> = fails ? .failure(Failure()) : .success(row)
                if spin % 2 == 0 {
                    finish(result)
                } else {
                    DispatchQueue.global().async { finish(result) }
                }
            })
        }
    }

    /// What a body checks as it starts.
    private static func enter(_ row: Int, _ dependencies: [Dependency], _ table: AtomicTable, _ log: ViolationLog) {
        if table.increment(row, Field.bodies) != 0 { log.record("the body of item \(row) ran twice") }
        if table.load(row, Field.cancelledPending) != 0 { log.record("item \(row) ran after it was cancelled pending") }
        for dependency in dependencies {
            let state = dependency.item.state
            if !state.isFinished {
                log.record("item \(row) ran before its dependency \(dependency.item.label) finished (\(state))")
            } else if dependency.policy != .run, state != .succeeded {
                log.record("item \(row) ran though its dependency \(dependency.item.label) \(state) under \(dependency.policy)")
            }
        }
    }

    /// One random operation, now and then: cancel, cancelAll, re-prioritise, limit, suspend or resume.
    private func operate(
        _ rng: inout SplitMix64, handles: [WorkItem<Int>], queues: [WorkQueue], generations: AtomicTable,
        table: AtomicTable, suspended: inout [Bool], _ report: inout GraphStressReport
    ) {
        let roll = rng.next() % 10_000
        guard roll < 500 else { return }
        let recent = handles.count - 1 - Int(rng.next() % UInt64(min(handles.count, 1_000)))
        let queueIndex = Int(rng.next() % UInt64(queues.count))
        switch roll {
        case ..<150:
            report.cancels += 1
            if handles[recent].workNode._cancelBeforeStart() {
                report.cancelledPending += 1
                table.store(recent, Field.cancelledPending, 1)
            }
        case ..<153:
            report.cancelAlls += 1
            queues[queueIndex].cancelAll()
            generations.increment(queueIndex, 0)
        case ..<450:
            report.reprioritised += 1
            handles[recent].priority = WorkPriority(rawValue: Int(rng.next() % UInt64(WorkPriority.allCases.count)))!
        case ..<480:
            report.limitChanges += 1
            try? queues[queueIndex].setMaxConcurrency(1 + Int(rng.next() % 8))
        default:
            if suspended[queueIndex] {
                queues[queueIndex].resume()
            } else {
                report.suspensions += 1
                queues[queueIndex].suspend()
            }
            suspended[queueIndex].toggle()
        }
    }

    /// The checks once everything finished.
    private func verify(
        _ handles: [WorkItem<Int>], queues: [WorkQueue], table: AtomicTable, log: ViolationLog,
        _ report: inout GraphStressReport
    ) {
        for (row, item) in handles.enumerated() {
            let state = item.state
            let bodies = table.load(row, Field.bodies)
            report.bodies += bodies
            switch state {
            case .succeeded: report.succeeded += 1
            case .failed: report.failed += 1
            case .cancelled: report.cancelled += 1
            default: log.record("item \(row) did not finish (\(state))")
            }
            if table.load(row, Field.finishes) != 1 {
                log.record("item \(row) finished \(table.load(row, Field.finishes)) times")
            }
            if state == .succeeded, bodies != 1 { log.record("item \(row) succeeded without its body running") }
            if table.load(row, Field.cancelledPending) != 0, bodies != 0 || state != .cancelled {
                log.record("item \(row), cancelled pending, ran \(bodies) times and reads \(state)")
            }
            let taken = table.load(row, Field.takeGeneration)
            if taken > table.load(row, Field.admitGeneration), bodies != 0 {
                log.record("item \(row) was taken after a cancelAll() that found it pending, and ran")
            }
            if item.isCancelled != (state == .cancelled) {
                log.record("item \(row) reads isCancelled \(item.isCancelled) and state \(state)")
            }
            item.workNode._checkInvariants()
        }
        for queue in queues {
            let counts = queue.counts
            if counts.unfinished != 0 || counts.running != 0 || counts.ready != 0 {
                log.record("\(queue.name) did not close its books: \(counts)")
            }
            queue._checkInvariants()
        }
    }
}
