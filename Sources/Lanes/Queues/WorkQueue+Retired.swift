import Synchronization

extension WorkQueue {
    /// How many nodes a runner leaves on the retired stack, unemptied by a producer, before it frees them itself:
    /// a node keeps its item's output, so what waits there stays small.
    static let retiredLimit = 32

    /// Takes a reference to the node of a synchronous item this runner ran, for the threads that add items to free
    /// at their next push (``releaseRetired()``), instead of the runner dropping the last reference.
    ///
    /// Why: a node is allocated by the thread that adds the item and, without this, freed by the runner. glibc's
    /// per-thread cache then never serves either side (the producer's stays empty, the runner's fills at once), so
    /// each allocation and each free of a node takes the producer's malloc arena lock, from two threads: a 100k chain
    /// whose runner keeps pace with its producer met there on most links (44–53k futex calls, twice the time: see
    /// benchmarks/log/2026-11-29-engine-chain.md). Freed on the producer, a node goes to the producer's cache and
    /// serves its next allocation without a lock.
    ///
    /// The reference is taken now and published by ``publishRetiring(_:)`` after the decision that accounts for the
    /// item, once the runner's own references are gone: published earlier, a producer could drop it first and leave
    /// the last release to the runner.
    func retire(_ node: WorkNode, into books: inout RunnerBooks) {
        #if DEBUG || LANES_INTERNAL_CHECKS
        precondition(node.finishedFlag.load(ordering: .acquiring), "retired node \(node.label) is not finished")
        #endif
        books.retiring.append(Unmanaged.passRetained(node))
    }

    /// Moves the runner's retired references to the queue's stack, in the critical section that accounts for their
    /// items (so an idle queue's retired nodes are all there), and returns whether the caller must free the stack
    /// after releasing the lock (a node's end runs its output's deinit): a runner that pushed ``retiredLimit`` nodes
    /// in a row onto a stack no producer emptied frees them itself, and from then on frees its own nodes after each
    /// decision (``releaseOwnRetiring(_:)``: no producer is adding, as when a gate releases thousands of items that
    /// were all added before it ran) until it finds the inbox holding new items again (``RunnerBooks/handsBack``).
    /// The stack is also emptied when a runner leaves the queue and before `idle()` returns.
    func publishRetiring(_ books: inout RunnerBooks) -> Bool {
        guard books.handsBack, !books.retiring.isEmpty else { return false }
        var full = false
        for entry in books.retiring {
            books.retiredInARow = retired.push(retained: entry) ? 1 : books.retiredInARow + 1
            if books.retiredInARow >= Self.retiredLimit {
                full = true
                books.retiredInARow = 0
                books.handsBack = false
            }
        }
        books.retiring.removeAll(keepingCapacity: true)
        return full
    }

    /// Drops the references a runner that frees its own nodes kept (after the decision that accounted for their
    /// items, outside the lock, before it wakes `idle()` waiters).
    @inline(__always)
    func releaseOwnRetiring(_ books: inout RunnerBooks) {
        guard !books.retiring.isEmpty else { return }
        for entry in books.retiring { entry.release() }
        books.retiring.removeAll(keepingCapacity: true)
    }

    /// Drops the retired stack's references (on the calling thread: a producer, or a runner that leaves).
    @inline(__always)
    func releaseRetired() {
        guard !retired.isEmpty else { return }
        retired.takeAll { _ in }
    }
}
