#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CLanesThreads
import Synchronization

/// The operating-system scheduling level a pool thread runs at. Each ``WorkPriority`` maps to one; a pool thread is
/// given its level once, when it starts, and keeps it for life (one band of threads per level), because Linux lets an
/// unprivileged thread raise its nice value but never lower it again.
///
/// | priority | level | Linux | Darwin QoS |
/// |---|---|---|---|
/// | `visible`, `normal` | `normal` | the process's nice value | user-initiated |
/// | `prefetch`, `utility` | `low` | 8 above it | utility |
/// | `background` | `lowest` | 10 above it (at most 19) | background |
///
/// The two lower levels also ask for a 0.1 ms time slice (``sliceNanoseconds``; Linux 6.12+ honours it, older kernels
/// ignore it): the nice value sets their share of the processor, the short slice lets the main thread preempt them as
/// soon as it wakes.
///
/// Nice levels (with the short slice) rather than `SCHED_IDLE`: they keep the main thread's wake-ups at the idle floor
/// in `lanes-bench main-latency`, and a `SCHED_IDLE` thread gets almost nothing while any normal thread of any
/// process wants the processor, so background work would starve on a busy machine; nice 10 still gets about a tenth
/// of a core beside a nice-0 spinner. libdispatch on Linux runs `.utility` at nice 2 and `.background` at nice 10, but
/// caps its pool near the core count, where a Lanes queue may run four times as many threads: at nice 8 (scheduler
/// weight 172 against nice 2's 655) eight utility threads weigh about what libdispatch's two do. The README's
/// benchmark section has the figures.
enum ThreadLevel: Int, Sendable, CaseIterable, Comparable {
    case lowest = 0
    case low = 1
    case normal = 2

    static let count = 3

    init(_ priority: WorkPriority) {
        switch priority {
        case .visible, .normal: self = .normal
        case .prefetch, .utility: self = .low
        case .background: self = .lowest
        }
    }

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// How far above the process's nice value this level runs (Linux).
    var niceOffset: Int32 {
        switch self {
        case .normal: 0
        case .low: 8
        case .lowest: 10
        }
    }

    /// The time slice a thread of this level asks the kernel for (Linux 6.12+, EEVDF; 0 = the default). Without
    /// it, a main thread waking up waits for the running low-level thread's protected slice to end — about one
    /// scheduler tick, whatever the nice values — so nice alone left the main thread's p99 at 3–5 ms beside eight
    /// spinning threads at nice 10; with a 0.1 ms slice it is 0.2–0.5 ms (`lanes-bench main-latency`).
    var sliceNanoseconds: UInt64 {
        switch self {
        case .normal: 0
        case .low, .lowest: 100_000
        }
    }

    // MARK: The current thread

    private static let key = ThreadLocalKey()

    /// The level the current thread was given by a Lanes pool; nil on any other thread (taken to be normal).
    static var current: ThreadLevel? {
        guard let raw = key.value else { return nil }
        return ThreadLevel(rawValue: Int(raw) - 1)
    }

    /// The nice value of the calling thread (on Linux `PRIO_PROCESS` with id 0 names the calling thread).
    static func currentNice() -> Int32 {
        #if canImport(Glibc)
        errno = 0
        let value = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        return errno == 0 ? value : 0
        #else
        return 0
        #endif
    }

    /// Pool threads that started at a higher nice value than their level's and had to lower it (which needs
    /// `CAP_SYS_NICE`). The design never needs to; tests check that this stays zero.
    package static let loweringsNeeded = Atomic<Int>(0)

    /// Puts the calling thread, a new pool thread, at this level, relative to `base` (the process's nice value):
    /// one system call, once per thread, and only ever to raise a nice value (which needs no privilege).
    func enter(base: Int32) {
        ThreadLevel.key.value = UInt64(rawValue + 1)
        #if canImport(Glibc)
        let target = min(19, base + niceOffset)
        let now = ThreadLevel.currentNice()
        if now > target { ThreadLevel.loweringsNeeded.add(1, ordering: .relaxed) }
        if now != target || sliceNanoseconds != 0 {
            _ = clanes_thread_set_fair_level(target, sliceNanoseconds)
        }
        #elseif canImport(Darwin)
        let qos: qos_class_t
        switch self {
        case .normal: qos = QOS_CLASS_USER_INITIATED
        case .low: qos = QOS_CLASS_UTILITY
        case .lowest: qos = QOS_CLASS_BACKGROUND
        }
        _ = pthread_set_qos_class_self_np(qos, 0)
        #endif
    }

    /// Names the calling thread after a queue, within Linux's 15-byte limit: `lanes: NAME` when it fits, otherwise
    /// the queue's name alone, cut at a character boundary.
    static func nameCurrentThread(queue: String) {
        var name = "lanes: " + queue
        if name.utf8.count > 15 {
            name = ""
            for character in queue {
                if name.utf8.count + String(character).utf8.count > 15 { break }
                name.append(character)
            }
        }
        #if os(Linux)
        // What pthread_setname_np does for the calling thread (which Glibc's Swift module does not export).
        let fd = open("/proc/thread-self/comm", O_WRONLY)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        #elseif canImport(Darwin)
        _ = pthread_setname_np(name)
        #endif
    }
}
