import CLanesThreads
import Dispatch
import Foundation
import Synchronization

/// The thread that watches a pool's running runners while others wait for the width (see ``PoolWidth``): every
/// `interval` it asks the pool to look for blocked runners, and parks while none wait. Made with the pool; it exits
/// when the pool goes away. Its tick is a timed wait on the semaphore it parks on, so ``stop()`` ends it at once.
final class PoolMonitor: Sendable {
    let interval: Duration
    private let wakeUp = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)
    /// The ticks it has begun (tests: a monitor with a long interval is in its tick once this grows).
    package let ticksBegun = Atomic<Int>(0)
    /// Opens when its thread has exited.
    package let exited = Latch()

    init(interval: Duration) { self.interval = interval }

    /// Starts the thread; `look` returns whether to keep watching (false: runners no longer wait, park).
    func start(_ look: @escaping @Sendable () -> Bool) {
        let thread = Thread { [self] in
            watch(look)
            exited.open()
        }
        thread.stackSize = 1 << 18
        thread.name = "lanes monitor"
        thread.start()
    }

    /// Parks until woken, then looks every `interval` until `look` says runners no longer wait; returns once stopped.
    private func watch(_ look: () -> Bool) {
        while true {
            wakeUp.wait()
            repeat {
                if stopped.load(ordering: .acquiring) { return }
                ticksBegun.add(1, ordering: .relaxed)
                // A tick. wake() signals only once it has parked or is about to, so what ends a tick early is stop()
                // (any other signal only makes this tick short).
                _ = wakeUp.wait(timeout: .now() + .nanoseconds(Int(clamping: interval.laneNanoseconds)))
                if stopped.load(ordering: .acquiring) { return }
            } while look()
        }
    }

    /// Runners started waiting while the monitor was parked.
    func wake() { wakeUp.signal() }

    /// Ends the thread at once, whether it is parked or in a tick.
    func stop() {
        stopped.store(true, ordering: .releasing)
        wakeUp.signal()
    }
}

extension ThreadPoolExecutor {
    /// The monitor's look: reads the state of every thread running a runner and starts as many waiting runners as
    /// the width now allows, counting blocked ones as not running. On Linux a runner is blocked when its thread is
    /// asleep or waiting on I/O (`/proc/self/task/TID/stat`); elsewhere, when it has run for more than four monitor
    /// intervals. Returns the runners it started and whether runners still wait. Tests call it by hand on a pool
    /// made without a monitor interval.
    @discardableResult
    package func checkBlockedRunners() -> (started: Int, keepWatching: Bool) {
        let busy = state.withLock { state -> [(Worker, UInt64)] in
            guard state.width.heldCount > 0 else { return [] }
            return state.workers.values.compactMap { worker in
                let since = worker.busySince.load(ordering: .acquiring)
                return since == 0 ? nil : (worker, since)
            }
        }
        let now = DispatchTime.now().uptimeNanoseconds
        let slow = 4 * (monitor?.interval ?? Self.monitorInterval).laneNanoseconds
        let looks = busy.map { worker, since -> (Worker, UInt64, Bool) in
            let blocked = clanes_thread_is_blocked(worker.threadID.load(ordering: .acquiring))
            return (worker, since, blocked >= 0 ? blocked == 1 : now &- since > slow)
        }
        let (placements, keepWatching) = state.withLock { state -> ([Placement], Bool) in
            defer { endSection(state) }
            for (worker, since, blocked) in looks where worker.busySince.load(ordering: .acquiring) == since {
                state.width.observe(worker: ObjectIdentifier(worker), level: worker.level, blocked: blocked)
            }
            let started = state.width.startHeld()
            state.statistics.runnersStartedByMonitor += started.count
            let placements = started.map { work, level in place(work, level: level, in: &state) }
            let keep = state.width.heldCount > 0
            if !keep { state.monitorAwake = false }
            return (placements, keep)
        }
        for placement in placements { carryOut(placement) }
        return (placements.count, keepWatching)
    }
}
