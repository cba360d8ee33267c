/// Handlers waiting for a moment that comes once (a watch that stopped, signals that are registered): added before
/// it, they run when it comes; added after it, at once.
final class Latch: Sendable {
    private let state = LockedValue<(isOpen: Bool, waiters: [@Sendable () -> Void])>((false, []))

    /// Runs `handler` once the latch opens (at once if it has).
    func whenOpen(_ handler: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.isOpen { return true }
            state.waiters.append(handler)
            return false
        }
        if now { handler() }
    }

    /// Opens the latch and runs the handlers waiting for it.
    func open() {
        let waiters = state.withLock { state -> [@Sendable () -> Void] in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter() }
    }
}
