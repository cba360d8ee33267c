import Dispatch
import Foundation
import Synchronization

/// Lanes' own elastic thread pool, the default executor. A queue asks for one runner per item it may start, so a
/// queue limited to 8 whose items block gets 8 threads within milliseconds (the Dispatch pool on Linux looks once a
/// second), while a queue of 8 whose items compute runs about as many at once as there are cores (see below).
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
/// At most as many runners as the machine has processors take new items at once at each level (``PoolWidth``,
/// `.processors` by default); a queue's further runners start when one ends, or when the pool's monitor sees a
/// running one blocked in a wait, a lock or I/O (on Linux it reads the runners' thread states, as libdispatch's pool
/// does; elsewhere a runner busy for longer than a few ticks counts as blocked). Empty items on a queue of width 16
/// then cost what they cost on a queue of width 2, and bodies that block still all start.
///
/// ```swift
/// let io = WorkQueue("io", maxConcurrency: 8, executor: ThreadPoolExecutor.shared)
/// ```
public final class ThreadPoolExecutor: WorkExecutor {
    /// The pool every queue uses unless told otherwise.
    public static let shared = ThreadPoolExecutor(maxThreads: 512, idleTimeout: 5)

    /// How often the monitor looks for blocked runners while runners wait for the width.
    static let monitorInterval = Duration.milliseconds(1)
    /// How long a runner keeps its place in the width while other runners wait for one (nanoseconds).
    static let quantum: UInt64 = 10_000_000

    let state: LockedValue<PoolState>
    let maxThreads: Int
    let idleTimeout: Double
    let lingerNanoseconds: UInt64
    /// The nice value of the thread that made the pool: the level `normal` threads run at.
    let baseNice: Int32
    /// The highest level its threads take (`normal` unless the pool was made with a lower ceiling).
    let ceiling: ThreadLevel
    let spawner: ThreadSpawner
    /// The runners waiting for the width, mirrored after each critical section (see ``runnersWaiting``).
    let heldMirror = Atomic<Int>(0)
    /// Looks for blocked runners while others wait for the width; nil when the width is unlimited or a test ticks it.
    let monitor: PoolMonitor?

    /// Creates a pool.
    /// - Parameters:
    ///   - maxThreads: the most threads it will run at once, all levels together; runners beyond that wait their
    ///     turn.
    ///   - idleTimeout: seconds an idle thread waits for work before it exits.
    ///   - linger: how long a runner whose queue ran dry keeps watching it for new items (yielding the processor
    ///     as it does) before it lets its thread park. Zero parks at once.
    ///   - ceiling: the highest priority whose OS level the pool's threads take (`.visible`: no cap).
    ///   - width: how many runners take new items at once at each level (see ``PoolWidth``).
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
    public convenience init(
        maxThreads: Int, idleTimeout: Double, linger: Duration = .microseconds(50), ceiling: WorkPriority = .visible,
        width: PoolWidth = .processors
    ) {
        self.init(
            maxThreads: maxThreads, idleTimeout: idleTimeout, linger: linger, ceiling: ceiling, width: width,
            monitorInterval: width == .unlimited ? nil : Self.monitorInterval)
    }

    /// A pool whose monitor looks every `monitorInterval`, or only when a test calls ``checkBlockedRunners()``
    /// (nil).
    package init(
        maxThreads: Int, idleTimeout: Double, linger: Duration = .microseconds(50), ceiling: WorkPriority = .visible,
        width: PoolWidth, monitorInterval: Duration?
    ) {
        self.ceiling = ThreadLevel(ceiling)
        self.maxThreads = max(1, maxThreads)
        self.idleTimeout = idleTimeout
        self.lingerNanoseconds = min(linger.laneNanoseconds, 3_600_000_000_000)
        self.baseNice = ThreadLevel.currentNice() - (ThreadLevel.current?.niceOffset ?? 0)
        self.spawner = ThreadSpawner()
        self.state = LockedValue(PoolState(width: WidthState(limit: width.limit)))
        self.monitor = monitorInterval.map { PoolMonitor(interval: $0) }
        monitor?.start { [weak self] in self?.checkBlockedRunners().keepWatching ?? false }
    }

    deinit {
        spawner.stop()
        monitor?.stop()
    }

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

    /// Runners waiting for the width now, and runners running at each level, lowest first (tests).
    package var widthBooks: (held: Int, running: [Int]) {
        state.withLock { state in (state.width.heldCount, state.width.active) }
    }

    public func schedule(_ runner: WorkRunner) {
        submit(.runner(runner), level: level(for: runner.priority))
    }
}
