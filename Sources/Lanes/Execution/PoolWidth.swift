import DequeModule
import Foundation

/// How many of a ``ThreadPoolExecutor``'s runners take new items at once.
///
/// With the default, ``processors``, at most as many runners as the machine has processors run at each level (a
/// runner counts against its own level and the ones below it, so a `visible` item never waits behind `background`
/// runners); a queue's further runners wait in the pool until one ends or the pool's monitor sees a running one
/// blocked (asleep in a wait, a lock or I/O), then start. A queue's `maxConcurrency` stays an exact upper bound:
/// the width only decides when its runners start, so eight bodies blocked at once on a two-core machine all start,
/// the later ones a monitor tick after the earlier ones blocked. A runner that has run 10 ms while others wait gives
/// its place to the oldest waiting runner of its level, so one busy queue cannot shut another out.
///
/// ```swift
/// let pool = ThreadPoolExecutor(maxThreads: 64, idleTimeout: 5, width: .processors)
/// let io = WorkQueue("io", maxConcurrency: 16, executor: pool)   // two run at once on two idle cores
/// let legacy = ThreadPoolExecutor(maxThreads: 64, idleTimeout: 5, width: .unlimited)
/// ```
public enum PoolWidth: Sendable, Equatable {
    /// As many running runners per level as the machine's active processors (the shared pool's setting).
    case processors
    /// At most this many running runners per level (at least 1).
    case runners(Int)
    /// Every runner a queue asks for starts at once (one thread each, up to `maxThreads`).
    case unlimited

    var limit: Int {
        switch self {
        case .processors: max(1, ProcessInfo.processInfo.activeProcessorCount)
        case .runners(let count): max(1, count)
        case .unlimited: .max
        }
    }
}

/// The pool's width books, guarded by the pool's lock: how many runners run at each level, how many of those the
/// monitor last saw blocked, and the runners waiting for a place. A runner at level L counts against every level at
/// or below L; it may start while fewer than `limit` unblocked runners run at L or above.
struct WidthState {
    let limit: Int
    /// Runners started and not yet ended, per level.
    private(set) var active = [Int](repeating: 0, count: ThreadLevel.count)
    /// Of those, the ones the monitor saw blocked at its last two looks, per level, and which workers they run on.
    private(set) var blocked = [Int](repeating: 0, count: ThreadLevel.count)
    private(set) var blockedWorkers: Set<ObjectIdentifier> = []
    /// Workers whose runner the monitor saw blocked at its last look only: a second look in a row makes it blocked
    /// (a runner waiting a few microseconds for a queue's lock is rarely caught twice, a blocked body always is).
    private(set) var suspects: Set<ObjectIdentifier> = []
    /// Runners waiting for a place, per level, oldest first.
    private(set) var held = [Deque<ThreadPoolExecutor.Work>](repeating: [], count: ThreadLevel.count)
    private(set) var heldCount = 0

    init(limit: Int) { self.limit = limit }

    /// Unblocked runners at `level` or above.
    func running(atOrAbove level: ThreadLevel) -> Int {
        (level.rawValue..<ThreadLevel.count).reduce(0) { $0 + active[$1] - blocked[$1] }
    }

    /// A runner for `level` asks to start: true if it may (it is counted), false if it was held.
    mutating func admit(_ work: ThreadPoolExecutor.Work, level: ThreadLevel) -> Bool {
        if running(atOrAbove: level) < limit {
            active[level.rawValue] += 1
            return true
        }
        held[level.rawValue].append(work)
        heldCount += 1
        return false
    }

    /// A runner at `level` on `worker` ended.
    mutating func ended(level: ThreadLevel, worker: ObjectIdentifier) {
        active[level.rawValue] -= 1
        if blockedWorkers.remove(worker) != nil { blocked[level.rawValue] -= 1 }
        suspects.remove(worker)
    }

    /// The monitor's look: whether the runner on `worker` (at `level`) is blocked now. Blocked at two looks in a row,
    /// it stops counting against the width; seen running, it counts again.
    mutating func observe(worker: ObjectIdentifier, level: ThreadLevel, blocked isBlocked: Bool) {
        if !isBlocked {
            suspects.remove(worker)
            if blockedWorkers.remove(worker) != nil { blocked[level.rawValue] -= 1 }
        } else if !blockedWorkers.contains(worker), suspects.insert(worker).inserted == false {
            suspects.remove(worker)
            blockedWorkers.insert(worker)
            blocked[level.rawValue] += 1
        }
    }

    /// Starts the held runners that now fit, the highest level first, each counted as running.
    mutating func startHeld() -> [(ThreadPoolExecutor.Work, ThreadLevel)] {
        guard heldCount > 0 else { return [] }
        var started: [(ThreadPoolExecutor.Work, ThreadLevel)] = []
        for level in ThreadLevel.allCases.reversed() {
            while !held[level.rawValue].isEmpty, running(atOrAbove: level) < limit {
                started.append((held[level.rawValue].removeFirst(), level))
                active[level.rawValue] += 1
                heldCount -= 1
            }
        }
        return started
    }

    /// The width's rules (called under the pool's lock when internal checks are on).
    func _checkInvariants() {
        func require(_ condition: Bool, _ rule: @autoclosure () -> String) {
            if !condition { InternalChecks.fail("thread pool width", rule()) }
        }
        require(limit >= 1, "the width is at least one runner")
        for level in ThreadLevel.allCases {
            let index = level.rawValue
            require(active[index] >= 0, "running runners per level are never negative")
            require(blocked[index] >= 0 && blocked[index] <= active[index], "only running runners are blocked")
        }
        require(blocked.reduce(0, +) == blockedWorkers.count, "one blocked runner per blocked worker")
        require(suspects.isDisjoint(with: blockedWorkers), "a worker is suspected or blocked, not both")
        require(suspects.count <= active.reduce(0, +), "only running runners are suspected")
        require(heldCount == held.reduce(0) { $0 + $1.count }, "the held count matches the held runners")
        for level in ThreadLevel.allCases where !held[level.rawValue].isEmpty {
            require(running(atOrAbove: level) >= limit, "a runner is held only while its level's width is full")
        }
    }
}
