import Dispatch
import DequeModule
import Foundation
import Synchronization

/// Lanes' own elastic thread pool, the default executor. A queue asks for one runner per item it may start, so a
/// queue limited to 8 whose items block gets 8 threads at once (the Dispatch pool on Linux grows far more slowly).
/// A runner that runs out of work lingers a few microseconds for more before its thread parks, so a producer adding
/// items one at a time does not pay a thread wake-up per item; idle threads exit after a few seconds without work.
///
/// Threads come in three bands, one per operating-system level (see the table in *Priorities* in the getting-started
/// article): an item runs on a thread of the level its effective priority maps to, so `background` items run at a
/// nice value 10 above the process's (`utility` and `prefetch` 8 above) and cannot delay the main thread's wake-ups.
/// A thread gets its level once, when it starts, and keeps it: no system call per item, and nothing that needs
/// privilege (Linux refuses to lower a nice value again). A runner that pops an item of another level hands it, with
/// its place in the queue, to a thread of that level; an item already running stays at the level it started at even
/// if a dependent later lends it `visible`. Threads are named after the queue they run (`lanes: decode`, or the
/// queue's name alone when that would pass Linux's 15-byte limit).
///
/// ```swift
/// let io = WorkQueue("io", maxConcurrency: 8, executor: ThreadPoolExecutor.shared)
/// ```
public final class ThreadPoolExecutor: WorkExecutor {
    /// The pool every queue uses unless told otherwise.
    public static let shared = ThreadPoolExecutor(maxThreads: 512, idleTimeout: 5)

    private struct Band {
        var idle: [Worker] = []
        var backlog: Deque<Work> = []
        var threads = 0
    }

    private struct PoolState {
        var bands = [Band](repeating: Band(), count: ThreadLevel.count)
        var threads = 0
        var statistics = Statistics()
    }

    private let state = LockedValue(PoolState())
    private let maxThreads: Int
    private let idleTimeout: Double
    private let lingerNanoseconds: UInt64
    /// The nice value of the thread that made the pool: the level `normal` threads run at.
    let baseNice: Int32
    /// The highest level its threads take (`normal` unless the pool was made with a lower ceiling).
    let ceiling: ThreadLevel
    private let spawner: ThreadSpawner

    /// Creates a pool.
    /// - Parameters:
    ///   - maxThreads: the most threads it will run at once, all levels together; runners beyond that wait their
    ///     turn.
    ///   - idleTimeout: seconds an idle thread waits for work before it exits.
    ///   - linger: how long a runner whose queue ran dry keeps watching it for new items (yielding the processor
    ///     as it does) before it lets its thread park. Zero parks at once.
    ///   - ceiling: the highest priority whose OS level the pool's threads take (`.visible`: no cap).
    ///
    /// Make a pool on a thread at the process's normal level (the main thread, or any thread Lanes did not lower):
    /// its `normal` threads run at the nice value of the thread that made it.
    ///
    /// ```swift
    /// let pool = ThreadPoolExecutor(maxThreads: 4, idleTimeout: 10, linger: .microseconds(100))
    /// let parsing = WorkQueue("parsing", maxConcurrency: 4, executor: pool)
    /// ```
    ///
    /// `ceiling` caps the operating-system level of the pool's threads at that priority's level: a pool made with
    /// `ceiling: .background` runs every item at the lowest level, below the main thread, whatever its priority,
    /// while its queues still order items by priority. An app keeps all of its background work there:
    ///
    /// ```swift
    /// let gentle = ThreadPoolExecutor(maxThreads: 2, idleTimeout: 30, ceiling: .background)
    /// let thumbnails = WorkQueue("thumbnails", maxConcurrency: 2, executor: gentle)
    /// thumbnails.add(priority: .visible) { _ in }  // first in line, still at the lowest OS level
    /// ```
    public init(
        maxThreads: Int, idleTimeout: Double, linger: Duration = .microseconds(50), ceiling: WorkPriority = .visible
    ) {
        self.ceiling = ThreadLevel(ceiling)
        self.maxThreads = max(1, maxThreads)
        self.idleTimeout = idleTimeout
        self.lingerNanoseconds = min(linger.laneNanoseconds, 3_600_000_000_000)
        self.baseNice = ThreadLevel.currentNice() - (ThreadLevel.current?.niceOffset ?? 0)
        self.spawner = ThreadSpawner()
    }

    deinit { spawner.stop() }

    /// Threads alive now (running or parked).
    public var threadCount: Int { state.withLock { $0.threads } }

    /// The level an item of `priority` runs at: its own, capped at the pool's ceiling.
    func level(for priority: WorkPriority) -> ThreadLevel { min(ThreadLevel(priority), ceiling) }

    /// Threads alive now at each level, lowest first (tests).
    package var threadsPerLevel: [Int] { state.withLock { $0.bands.map(\.threads) } }

    /// Pool threads, of every pool, that started above their level's nice value and had to lower it, which needs
    /// privilege (tests check that it never happens).
    package static var niceLoweringsNeeded: Int { ThreadLevel.loweringsNeeded.load(ordering: .relaxed) }

    /// The pool's counters so far.
    ///
    /// ```swift
    /// let before = pool.statistics.wakeUps
    /// // ... a burst of work ...
    /// print("woke \(pool.statistics.wakeUps - before) parked threads")
    /// ```
    public var statistics: Statistics { state.withLock { $0.statistics } }

    public func schedule(_ runner: WorkRunner) {
        submit(.runner(runner), level: level(for: runner.priority))
    }

    /// Hands `work` to an idle thread of `level`, a new thread of that level, or the level's backlog.
    func submit(_ work: Work, level: ThreadLevel) {
        enum Decision { case wake(Worker), spawn, replace(Worker), queued }
        let decision = state.withLock { state -> Decision in
            if case .runner = work { state.statistics.runners += 1 }
            if let worker = state.bands[level.rawValue].idle.popLast() {
                worker.assignment.withLock { $0 = work }
                state.statistics.wakeUps += 1
                return .wake(worker)
            }
            if state.threads < maxThreads {
                state.threads += 1
                state.bands[level.rawValue].threads += 1
                state.statistics.threadsStarted += 1
                return .spawn
            }
            // At the limit with a thread idle at another level: it exits and one of this level takes its place.
            if let other = ThreadLevel.allCases.first(where: { !state.bands[$0.rawValue].idle.isEmpty }),
                let idle = state.bands[other.rawValue].idle.popLast()
            {
                idle.assignment.withLock { $0 = .exit }
                state.bands[other.rawValue].threads -= 1
                state.bands[level.rawValue].threads += 1
                state.statistics.threadsStarted += 1
                return .replace(idle)
            }
            state.bands[level.rawValue].backlog.append(work)
            return .queued
        }
        switch decision {
        case .wake(let worker): worker.wakeUp.signal()
        case .spawn: spawn(level: level, first: work)
        case .replace(let idle):
            idle.wakeUp.signal()
            spawn(level: level, first: work)
        case .queued: break
        }
    }

    /// Starts a thread of `level`. A thread inherits the nice value of the thread that creates it, and an
    /// unprivileged one cannot lower it again, so a thread at a lower level than `level` asks the pool's spawner
    /// (made at the process's level with the pool) to create it instead. Only thread creation pays the hop.
    private func spawn(level: ThreadLevel, first: Work) {
        let worker = Worker(level: level, first: first)
        let start: @Sendable () -> Void = { [self] in
            let thread = Thread { [self, worker] in self.workerLoop(worker) }
            thread.stackSize = 1 << 20
            thread.start()
        }
        if let current = ThreadLevel.current, current < level, spawner.spawn(start) { return }
        start()
    }

    private func workerLoop(_ worker: Worker) {
        worker.level.enter(base: baseNice)
        var named: UInt64 = 0
        var next = worker.take()
        enum Next { case work(Work), park, retire(ThreadLevel, Work) }
        while true {
            if let work = next.take() { perform(work, on: worker, named: &named) }
            let decision = state.withLock { state -> Next in
                let own = worker.level.rawValue
                if let queued = state.bands[own].backlog.popFirst() { return .work(queued) }
                // At the thread limit, work waiting for another level needs a thread of that level: this one gives
                // up its place to it.
                for other in ThreadLevel.allCases where other != worker.level {
                    if let queued = state.bands[other.rawValue].backlog.popFirst() {
                        state.bands[own].threads -= 1
                        state.bands[other.rawValue].threads += 1
                        state.statistics.threadsStarted += 1
                        return .retire(other, queued)
                    }
                }
                state.bands[own].idle.append(worker)
                return .park
            }
            switch decision {
            case .work(let work):
                next = work
                continue
            case .retire(let level, let work):
                spawn(level: level, first: work)
                return
            case .park:
                break
            }
            if worker.wakeUp.wait(timeout: .now() + idleTimeout) == .timedOut {
                let leave = state.withLock { state -> Bool in
                    let own = worker.level.rawValue
                    guard let index = state.bands[own].idle.firstIndex(where: { $0 === worker }) else { return false }
                    state.bands[own].idle.remove(at: index)
                    state.bands[own].threads -= 1
                    state.threads -= 1
                    return true
                }
                if leave { return }
                // Someone assigned work just as the wait timed out; its signal is on the way.
                worker.wakeUp.wait()
            }
            next = worker.take()
            if case .exit = next { return }
        }
    }

    /// Runs one unit of work. A runner whose queue hands over an item of another level passes it on to a thread of
    /// that level. The thread takes the name of the queue it runs when that changes (a system call per change of
    /// queue, none per item).
    private func perform(_ work: consuming Work, on worker: Worker, named: inout UInt64) {
        switch consume work {
        case .runner(let runner):
            if named != runner.queue.id {
                named = runner.queue.id
                ThreadLevel.nameCurrentThread(queue: runner.queue.name)
            }
            if let handoff = runner.run(lingering: lingerNanoseconds, level: worker.level, ceiling: ceiling) {
                submit(.runner(handoff), level: level(for: handoff.priority))
            }
        case .job(let job, let executor):
            job.runSynchronously(on: executor.asUnownedTaskExecutor())
        case .exit:
            break
        }
    }
}
