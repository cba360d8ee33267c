import DequeModule
import Dispatch
import Foundation
import Synchronization

/// A named queue of work items with an exact concurrency limit, priorities, barriers, suspension and cancel-all.
///
/// Move slow work off the main queue and ship the result back to it (the pattern of WWDC 2010's "Introducing Blocks
/// and Grand Central Dispatch on iPhone"):
///
/// ```swift
/// let processing = WorkQueue("processing", maxConcurrency: 4)
/// let smoothed = processing.add(label: "smooth AAPL") { ctx in
///     try smooth(prices, isCancelled: { ctx.isCancelled })
/// }
/// smoothed.onMainCompletion { result in          // chart is @MainActor
///     if case .success(let series) = result { chart.show(series) }
/// }
/// // The user left the screen:
/// processing.cancelAll()
/// ```
///
/// A limit of 1 makes a serial FIFO lane (within one priority level). The limit is honoured exactly: Lanes runs
/// items on its own threads, so the concurrency you set is the concurrency you get, even when bodies block.
public final class WorkQueue: Sendable, Hashable, CustomStringConvertible {
    private static let ids = Atomic<UInt64>(0)

    /// The queue's name, shown in events, traces and errors.
    public let name: String
    let id: UInt64
    let executor: any WorkExecutor
    let state: Lock<QueueState>
    /// Mirrors the state's cancel-all epoch for lock-free cancellation checks.
    let cancelEpoch = Atomic<UInt64>(0)
    /// Nodes enqueued ready, not yet moved into the buckets.
    let inbox = ReadyInbox()
    /// Finished synchronous items' nodes that runners hand back for the adding thread to free (see
    /// `WorkQueue+Retired.swift`).
    let retired = ReadyInbox()
    /// Mirrors `state.workers` and `state.limit`, so a producer can tell without the lock whether a runner may be
    /// missing.
    let workersMirror = Atomic<Int>(0)
    let limitMirror: Atomic<Int>
    /// Mirrors whether a runner could pop an item now, for runners lingering outside the lock (see `drain`).
    let poppableMirror = Atomic<Bool>(false)
    /// At least the most urgent level of the ready items (buckets and inbox): a runner checks it before starting
    /// each item of its batch (see ``RunnerBatch``). Producers raise it; the lock's holder lowers it.
    let readyTopMirror = Atomic<Int>(-1)
    /// Runners lingering for work without the lock (in `awaitWork`). Each takes the lock when it stops lingering,
    /// admitting the inbox, so a producer that sees one after its push asks for no runner (Tokio's and Go's rule:
    /// no wake-up while a worker searches); the lingering runner that finds work asks for runners for the rest.
    let lingering = Atomic<Int>(0)
    /// Bumped (under the lock) by a suspend or a lowered limit, so lingering runners detach at once.
    let lingerBreaks = Atomic<UInt32>(0)
    /// Whether each ready item gets a runner of its own (``main``; see `init(_:maxConcurrency:executor:turnPerItem:)`).
    let turnPerItem: Bool
    #if DEBUG || LANES_INTERNAL_CHECKS
    /// Test hooks on the runners (see `RunnerHooks`).
    let debugHooks = DebugHooks()
    #endif

    /// Creates a queue.
    /// - Parameters:
    ///   - name: shown in events, traces and errors.
    ///   - maxConcurrency: how many items may run at once (values below 1 are treated as 1; use
    ///     ``setMaxConcurrency(_:)`` to get an error instead). Defaults to the number of active processors.
    ///   - executor: where bodies run; Lanes' own thread pool by default.
    public convenience init(
        _ name: String, maxConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount,
        executor: (any WorkExecutor)? = nil
    ) {
        self.init(name, maxConcurrency: maxConcurrency, executor: executor, turnPerItem: false)
    }

    /// With `turnPerItem`, every item that becomes ready asks the executor for a runner of its own at once, whatever
    /// the limit (a runner that finds the limit reached leaves without asking again): on a serial dispatch queue, with
    /// a batch of 1, each item then takes its place among the queue's other blocks when it is enqueued.
    init(_ name: String, maxConcurrency: Int, executor: (any WorkExecutor)?, turnPerItem: Bool) {
        self.name = name
        self.id = Self.ids.add(1, ordering: .relaxed).newValue
        self.executor = executor ?? ThreadPoolExecutor.shared
        self.turnPerItem = turnPerItem
        self.state = Lock(QueueState(limit: max(1, maxConcurrency), turnPerItem: turnPerItem))
        self.limitMirror = Atomic(max(1, maxConcurrency))
    }

    /// A serial queue whose items run through the main dispatch queue, in order with `DispatchQueue.main` blocks and
    /// `@MainActor` jobs (``WorkItem/onMainCompletion(_:)`` hands results to main-actor code). Use it to ship results
    /// to the UI.
    ///
    /// **Order.** Each item takes its turn on the main dispatch queue when it is enqueued (an item with dependencies:
    /// when they finish), exactly as a `DispatchQueue.main.async` block would, and each turn runs the most urgent
    /// item waiting, first come first served within a priority. So:
    /// - items of the same priority, enqueued from one thread, run in that order with the `DispatchQueue.main` blocks
    ///   and `@MainActor` jobs that thread enqueues between them;
    /// - an item never waits behind main-queue work enqueued after it: a flood of `DispatchQueue.main` blocks
    ///   delays it by none of those that came later;
    /// - a more urgent item runs at the first turn of any waiting item, ahead of less urgent ones enqueued before it
    ///   (completion handlers and the toolkit's deliveries are `.visible`;
    ///   ``add(label:priority:after:policy:_:)-7xwzo`` defaults to `.normal`). Give items the same priority where
    ///   their relative order matters;
    /// - while an `async` item is suspended the queue runs nothing else: items that became ready meanwhile take new
    ///   turns when it finishes.
    ///
    /// Its items run on the process's main thread when the main thread runs a loop that drains the main queue:
    /// ``MainLoop``, Foundation's `RunLoop`, or a GUI toolkit's loop bridged with ``MainQueueDriver``. A program
    /// parked in `dispatchMain()` or an `async main` (on Linux) still runs them serially on the main queue (so
    /// ``MainQueue/isCurrent`` holds and `@MainActor` code may run), but on a worker thread: see ``MainLoop``.
    ///
    /// ```swift
    /// MainLoop.run {
    ///     WorkQueue.main.add { _ in print("first") }
    ///     DispatchQueue.main.async { print("second") }
    ///     WorkQueue.main.add { _ in print("third") }
    /// }
    /// ```
    public static let main = WorkQueue(
        "main", maxConcurrency: 1, executor: MainTurnExecutor(), turnPerItem: true)

    public var description: String { "WorkQueue(\(name))" }
    public static func == (lhs: WorkQueue, rhs: WorkQueue) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    // MARK: Limits and suspension

    /// How many items may run at once.
    public var maxConcurrency: Int { locked { $0.limit } }

    /// Changes the concurrency limit while the queue runs. Raising it starts waiting items at once; lowering it lets
    /// running items finish and starts no new ones until fewer than `limit` run.
    ///
    /// ```swift
    /// try downloads.setMaxConcurrency(2)   // scrolling fast: leave the CPU to the main queue
    /// ```
    public func setMaxConcurrency(_ limit: Int) throws(LanesError) {
        guard limit >= 1 else { throw .invalidLimit(limit) }
        updateRequestingRunners { state in
            if limit < state.limit { lingerBreaks.wrappingAdd(1, ordering: .releasing) }
            state.limit = limit
        }
    }

    /// Caps how many items below `priority` run at once, so they never take the whole width: the remaining slots
    /// stay free for items at `priority` or above (a visible row never waits behind running prefetches). Items
    /// already running are not interrupted; `limit` `Int.max` (or a `priority` of `.background`) removes the cap.
    ///
    /// ```swift
    /// let renders = WorkQueue("renders", maxConcurrency: 4)
    /// renders.setSpeculativeLimit(3, below: .normal)   // prefetch takes at most 3 threads; one is kept for the screen
    /// ```
    public func setSpeculativeLimit(_ limit: Int, below priority: WorkPriority) {
        updateRequestingRunners { $0.setSpeculative(below: limit == .max ? 0 : priority.rawValue, limit: max(0, limit)) }
    }

    /// The cap set by ``setSpeculativeLimit(_:below:)``: at most `limit` items below `priority` run at once (nil: no
    /// cap).
    ///
    /// ```swift
    /// if let cap = renders.speculativeLimit { print("\(cap.limit) below \(cap.priority)") }
    /// ```
    public var speculativeLimit: (limit: Int, priority: WorkPriority)? {
        locked { state in
            let cap = state.speculative
            return cap.below == 0 ? nil : (cap.limit, WorkPriority(rawValue: cap.below)!)
        }
    }

    /// Whether the queue is suspended (running items continue; no new item starts).
    public var isSuspended: Bool { locked { $0.suspended } }

    /// Stops starting items until ``resume()``. Running items are not interrupted.
    public func suspend() {
        locked { state in
            state.suspended = true
            lingerBreaks.wrappingAdd(1, ordering: .releasing)
        }
    }

    /// Starts items again after ``suspend()``.
    public func resume() {
        updateRequestingRunners { $0.suspended = false }
    }

    /// A snapshot of the queue's counters.
    public struct Counts: Sendable, Equatable {
        /// Items enqueued and not yet finished (waiting, ready or running).
        public var unfinished: Int
        /// Items ready to start.
        public var ready: Int
        /// Items running.
        public var running: Int
        /// Items finished since the queue was made.
        public var completed: UInt64
        /// Runners attached to the queue: running its items, asked for, or lingering for more work.
        public var runners: Int = 0
    }

    /// The queue's counters now. An item's handle resolves a moment before the queue counts the item finished; to
    /// read settled counts after awaiting items, `await idle()` first.
    ///
    /// ```swift
    /// let counts = queue.counts
    /// print("\(counts.running) running, \(counts.ready) ready, \(counts.completed) done")
    /// ```
    public var counts: Counts {
        locked {
            Counts(
                unfinished: $0.unfinished, ready: $0.live + $0.batches.pending, running: $0.running,
                completed: $0.completedCount, runners: $0.workers)
        }
    }
}
