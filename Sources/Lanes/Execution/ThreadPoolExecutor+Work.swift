import Synchronization
import Dispatch

extension ThreadPoolExecutor {
    /// Counters since the pool was made.
    public struct Statistics: Sendable, Equatable {
        /// Threads started (a thread that exited after its idle timeout and a new one count twice).
        public var threadsStarted = 0
        /// Runners queues asked the pool for.
        public var runners = 0
        /// Runners that woke a parked thread (each one a system call and a context switch).
        public var wakeUps = 0
        /// Runners that waited for a place in the pool's width (``PoolWidth``) before they started.
        public var runnersHeld = 0
        /// Of those, the runners the monitor started because running ones were blocked.
        public var runnersStartedByMonitor = 0
    }


    /// One unit of work for a pool thread: a queue's runner, or a job of an `async` body run with this pool as its
    /// task executor.
    enum Work: Sendable {
        case runner(WorkRunner)
        case job(UnownedJob, PoolTaskExecutor)
        /// Tells an idle thread to exit: a thread of another level takes its place.
        case exit
    }

    final class Worker: Sendable {
        let wakeUp = DispatchSemaphore(value: 0)
        let assignment = LockedValue<Work?>(nil)
        let level: ThreadLevel
        /// The kernel's id of its thread (0 until the thread starts), for the monitor.
        let threadID = Atomic<Int32>(0)
        /// When the runner it runs now started (uptime nanoseconds); 0 while it runs none.
        let busySince = Atomic<UInt64>(0)

        init(level: ThreadLevel, first: Work?) {
            self.level = level
            assignment.withLock { $0 = first }
        }

        func take() -> Work? { assignment.withLock { $0.take() } }
    }
}
