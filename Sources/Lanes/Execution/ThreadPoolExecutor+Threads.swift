import Dispatch
import DequeModule
import Foundation
import Synchronization

extension ThreadPoolExecutor {
    struct Band {
        var idle: [Worker] = []
        var backlog: Deque<Work> = []
        var threads = 0
    }

    /// The pool's books, guarded by its lock: the threads of each level, the width, the live workers (for the
    /// monitor) and whether the monitor is watching.
    struct PoolState {
        var bands = [Band](repeating: Band(), count: ThreadLevel.count)
        var threads = 0
        var statistics = Statistics()
        var width: WidthState
        var workers: [ObjectIdentifier: Worker] = [:]
        var monitorAwake = false

        init(width: WidthState) { self.width = width }

        func _checkInvariants() {
            guard InternalChecks.isEnabled else { return }
            width._checkInvariants()
            if threads != bands.reduce(0, { $0 + $1.threads }) || workers.count != threads {
                InternalChecks.fail("thread pool", "the threads per level add up to the pool's, and each has a worker")
            }
        }
    }

    /// Ends a critical section of the pool's lock: publishes whether runners wait for the width (what a lingering
    /// runner watches, without the lock) and checks the books.
    func endSection(_ state: borrowing PoolState) {
        heldMirror.store(state.width.heldCount, ordering: .relaxed)
        state._checkInvariants()
    }

    /// Whether runners wait for a place in the width (read without the lock, by lingering runners).
    var runnersWaiting: Bool { heldMirror.load(ordering: .relaxed) > 0 }

    /// Where a piece of work goes once it may start (decided under the lock, done after it).
    enum Placement {
        /// An idle thread of its level was given it: wake it.
        case wake(Worker)
        /// A new thread of its level starts with it.
        case spawn(Worker)
        /// At the thread limit: an idle thread of another level exits, a new one of this level starts with it.
        case replace(exiting: Worker, new: Worker)
        /// At the thread limit: it waits in its level's backlog.
        case queued
    }

    /// Hands `work` to an idle thread of `level`, a new thread of that level, or the level's backlog; a runner
    /// first takes a place in the width, or waits for one.
    func submit(_ work: Work, level: ThreadLevel) {
        enum Decision { case place(Placement), held(wakeMonitor: Bool) }
        let decision = state.withLock { state -> Decision in
            defer { endSection(state) }
            if case .runner = work {
                state.statistics.runners += 1
                if !state.width.admit(work, level: level) {
                    state.statistics.runnersHeld += 1
                    let wake = monitor != nil && !state.monitorAwake
                    if wake { state.monitorAwake = true }
                    return .held(wakeMonitor: wake)
                }
            }
            return .place(place(work, level: level, in: &state))
        }
        switch decision {
        case .place(let placement): carryOut(placement)
        case .held(let wakeMonitor): if wakeMonitor { monitor?.wake() }
        }
    }

    /// Chooses a thread for `work`, which may start now (under the lock).
    func place(_ work: Work, level: ThreadLevel, in state: inout PoolState) -> Placement {
        if let worker = state.bands[level.rawValue].idle.popLast() {
            worker.assignment.withLock { $0 = work }
            state.statistics.wakeUps += 1
            return .wake(worker)
        }
        if state.threads < maxThreads {
            state.threads += 1
            return .spawn(newWorker(level: level, first: work, in: &state))
        }
        // At the limit with a thread idle at another level: it exits and one of this level takes its place.
        if let other = ThreadLevel.allCases.first(where: { !state.bands[$0.rawValue].idle.isEmpty }),
            let idle = state.bands[other.rawValue].idle.popLast()
        {
            idle.assignment.withLock { $0 = .exit }
            state.bands[other.rawValue].threads -= 1
            state.workers[ObjectIdentifier(idle)] = nil
            return .replace(exiting: idle, new: newWorker(level: level, first: work, in: &state))
        }
        state.bands[level.rawValue].backlog.append(work)
        return .queued
    }

    /// A worker for a thread about to start at `level` (under the lock; the caller counts it in `threads`).
    func newWorker(level: ThreadLevel, first: Work, in state: inout PoolState) -> Worker {
        let worker = Worker(level: level, first: first)
        state.bands[level.rawValue].threads += 1
        state.statistics.threadsStarted += 1
        state.workers[ObjectIdentifier(worker)] = worker
        return worker
    }

    func carryOut(_ placement: Placement) {
        switch placement {
        case .wake(let worker): worker.wakeUp.signal()
        case .spawn(let worker): spawn(worker)
        case .replace(let idle, let worker):
            idle.wakeUp.signal()
            spawn(worker)
        case .queued: break
        }
    }

    /// Starts the thread of `worker`. A thread inherits the nice value of the thread that creates it, and an
    /// unprivileged one cannot lower it again, so a thread at a lower level than the worker's asks the pool's spawner
    /// (made at the process's level with the pool) to create it instead. Only thread creation pays the hop.
    func spawn(_ worker: Worker) {
        let start: @Sendable () -> Void = { [self] in
            let thread = Thread { [self, worker] in self.workerLoop(worker) }
            thread.stackSize = 1 << 20
            thread.start()
        }
        if let current = ThreadLevel.current, current < worker.level, spawner.spawn(start) { return }
        start()
    }
}
