import Foundation

/// State behind a condition variable, for a thread that must block until another changes it (a reader waiting for
/// a download's next chunk, a stalled fetch waiting for its cancel): every change wakes the waiters.
final class ConditionGuarded<State: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `state` is read and written only while `condition` is locked (`withLock`, `wait(for:)`).
    private let condition = NSCondition()
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    /// Runs `body` on the state under the lock, then wakes every waiter.
    func withLock<T>(_ body: (inout State) throws -> T) rethrows -> T {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&state)
    }

    /// Runs `body` under the lock until it returns a value (or throws), waiting for a change between tries.
    func wait<T>(for body: (inout State) throws -> T?) rethrows -> T {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let value = try body(&state) { return value }
            condition.wait()
        }
    }
}
