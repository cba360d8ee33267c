import Dispatch
import Foundation

/// Creates a pool's threads for callers at a lower level than the thread they need. Its own thread is made with the
/// pool, at the process's level, and parks until asked; it exits when the pool goes away.
final class ThreadSpawner: Sendable {
    private struct State {
        var requests: [@Sendable () -> Void] = []
        var started = false
        var stopped = false
    }
    private let state = LockedValue(State())
    private let wakeUp = DispatchSemaphore(value: 0)

    init() {
        let thread = Thread { [self] in self.loop() }
        thread.stackSize = 1 << 18
        thread.name = "lanes spawner"
        thread.start()
    }

    /// Queues a thread start; false once the spawner stopped (the caller then starts the thread itself).
    func spawn(_ start: @escaping @Sendable () -> Void) -> Bool {
        let accepted = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.requests.append(start)
            return true
        }
        if accepted { wakeUp.signal() }
        return accepted
    }

    func stop() {
        state.withLock { $0.stopped = true }
        wakeUp.signal()
    }

    private func loop() {
        while true {
            wakeUp.wait()
            let (requests, stopped) = state.withLock { state in
                defer { state.requests = [] }
                return (state.requests, state.stopped)
            }
            for start in requests { start() }
            if stopped { return }
        }
    }
}
