import CLanesThreads
import DequeModule
import Dispatch
import Synchronization

// A pool thread's life: run a piece of work, then decide under the pool's lock what comes next (`workerStep`), then do
// it after the lock is released (start the runners its place in the width let in, run on, retire or park).

extension ThreadPoolExecutor {
    /// What a pool thread does after a piece of work (decided under the pool's lock, done after it).
    enum WorkerStep {
        /// Runs this next.
        case work(Work)
        /// Waits, idle, for an assignment (it is in its level's idle list).
        case park
        /// Exits: at the thread limit, work waits for another level, and this thread of the successor's level starts
        /// in its place.
        case retire(successor: Worker)
    }

    /// The loop of a pool thread: the work it was started with, then whatever the pool gives it, until it retires,
    /// idles past the timeout or is told to exit.
    func workerLoop(_ worker: Worker) {
        worker.level.enter(base: baseNice)
        worker.threadID.store(clanes_thread_id(), ordering: .releasing)
        var named: UInt64 = 0
        var next = worker.take()
        while true {
            var ranRunner = false
            if let work = next.take() { ranRunner = perform(work, on: worker, named: &named) }
            let (step, placements) = state.withLock { state in
                defer { endSection(state) }
                return workerStep(for: worker, ranRunner: ranRunner, in: &state)
            }
            for placement in placements { carryOut(placement) }
            switch step {
            case .work(let work):
                next = work
            case .retire(let successor):
                spawn(successor)
                return
            case .park:
                guard waitForAssignment(worker) else { return }
                next = worker.take()
                if case .exit = next { return }
            }
        }
    }

    /// Decides what `worker`'s thread does next (under the lock): the runner it ran gives up its place in the width,
    /// then the thread runs the work of its level that waits longest, retires for work of another level, or parks.
    /// Also returns the threads to give the runners let into the width (to carry out after the lock).
    func workerStep(
        for worker: Worker, ranRunner: Bool, in state: inout PoolState
    ) -> (WorkerStep, [Placement]) {
        let own = worker.level.rawValue
        let (mine, placements) = ranRunner ? endRunner(on: worker, in: &state) : (nil, [])
        if let queued = state.bands[own].backlog.popFirst() {
            // The level's backlog came first: the runner let in waits behind it.
            if let mine { state.bands[own].backlog.append(mine) }
            return (.work(queued), placements)
        }
        if let mine { return (.work(mine), placements) }
        // At the thread limit, work waiting for another level needs a thread of that level: this one gives up its
        // place to it.
        for other in ThreadLevel.allCases where other != worker.level {
            if let queued = state.bands[other.rawValue].backlog.popFirst() {
                state.bands[own].threads -= 1
                state.workers[ObjectIdentifier(worker)] = nil
                return (.retire(successor: newWorker(level: other, first: queued, in: &state)), placements)
            }
        }
        state.bands[own].idle.append(worker)
        return (.park, placements)
    }

    /// Gives the place in the width of the runner `worker` ran to the runners waiting for one (under the lock): the
    /// first of its level it keeps to run itself, the others get threads (placements, for after the lock).
    private func endRunner(on worker: Worker, in state: inout PoolState) -> (mine: Work?, [Placement]) {
        state.width.ended(level: worker.level, worker: ObjectIdentifier(worker))
        var mine: Work?
        var placements: [Placement] = []
        for (work, level) in state.width.startHeld() {
            if mine == nil, level == worker.level { mine = work } else {
                placements.append(place(work, level: level, in: &state))
            }
        }
        return (mine, placements)
    }

    /// Parks `worker`'s thread until it is given work; false when it idled past the pool's timeout and left the pool
    /// (its thread then exits).
    private func waitForAssignment(_ worker: Worker) -> Bool {
        guard worker.wakeUp.wait(timeout: .now() + idleTimeout) == .timedOut else { return true }
        let left = state.withLock { state in
            defer { endSection(state) }
            return leaveIdle(worker, in: &state)
        }
        if left { return false }
        // Someone assigned work just as the wait timed out; its signal is on the way.
        worker.wakeUp.wait()
        return true
    }

    /// Takes an idle `worker` out of the pool's books (under the lock); false when it is no longer idle (work was
    /// assigned to it as its wait timed out).
    private func leaveIdle(_ worker: Worker, in state: inout PoolState) -> Bool {
        let own = worker.level.rawValue
        guard let index = state.bands[own].idle.firstIndex(where: { $0 === worker }) else { return false }
        state.bands[own].idle.remove(at: index)
        state.bands[own].threads -= 1
        state.threads -= 1
        state.workers[ObjectIdentifier(worker)] = nil
        return true
    }

    /// Runs one unit of work; true if it was a runner (which held a place in the width). A runner whose queue hands
    /// over an item of another level passes it on to a thread of that level. The thread takes the name of the queue
    /// it runs when that changes (a system call per change of queue, none per item).
    private func perform(_ work: consuming Work, on worker: Worker, named: inout UInt64) -> Bool {
        switch consume work {
        case .runner(let runner):
            if named != runner.queue.id {
                named = runner.queue.id
                ThreadLevel.nameCurrentThread(queue: runner.queue.name)
            }
            worker.busySince.store(max(1, DispatchTime.now().uptimeNanoseconds), ordering: .releasing)
            let handoff = runner.run(
                lingering: lingerNanoseconds, level: worker.level, ceiling: ceiling, pool: self)
            worker.busySince.store(0, ordering: .releasing)
            if let handoff { submit(.runner(handoff), level: level(for: handoff.priority)) }
            return true
        case .job(let job, let executor):
            job.runSynchronously(on: executor.asUnownedTaskExecutor())
            return false
        case .exit:
            return false
        }
    }
}
