#if DEBUG || LANES_INTERNAL_CHECKS
import Synchronization

/// Test hooks on a queue's runners (debug builds, and builds with `-DLANES_INTERNAL_CHECKS`; release builds have
/// neither the storage nor the calls).
/// They let a test stop a runner at an exact point of an item's path instead of hoping a race happens: the
/// deterministic tests of cancel-all against a taken item, and the stress test's record of when items are taken.
///
/// ```swift
/// queue._setRunnerHooks(RunnerHooks(taken: { label in takenGate.open(); proceedGate.wait() }))
/// ```
package struct RunnerHooks: Sendable {
    /// Called with the item's label by a runner that took it from the queue, before it tries to start it (outside
    /// every lock; it may block to hold the runner there).
    package var taken: (@Sendable (String) -> Void)?
    /// Called with the item's label by a runner about to list the item its last item made ready (see
    /// `RunnerBooks.next`), outside every lock.
    package var listsNext: (@Sendable (String) -> Void)?

    package init(taken: (@Sendable (String) -> Void)? = nil, listsNext: (@Sendable (String) -> Void)? = nil) {
        self.taken = taken
        self.listsNext = listsNext
    }
}

/// A queue's hooks: a flag tested per item, and the hooks themselves behind a lock.
final class DebugHooks: Sendable {
    private let installed = Atomic<Bool>(false)
    private let hooks = LockedValue(RunnerHooks())

    func set(_ new: RunnerHooks?) {
        hooks.withLock { $0 = new ?? RunnerHooks() }
        installed.store(new != nil, ordering: .releasing)
    }

    func taken(_ node: WorkNode) {
        guard installed.load(ordering: .acquiring), let hook = hooks.withLock({ $0.taken }) else { return }
        hook(node.label)
    }

    func listsNext(_ node: WorkNode) {
        guard installed.load(ordering: .acquiring), let hook = hooks.withLock({ $0.listsNext }) else { return }
        hook(node.label)
    }

}

extension WorkQueue {
    /// Installs (or, with nil, removes) test hooks on this queue's runners.
    package func _setRunnerHooks(_ hooks: RunnerHooks?) {
        debugHooks.set(hooks)
    }
}
#endif
