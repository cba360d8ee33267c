import DequeModule
import Dispatch

/// The queue of operations waiting to run on an ``Owned`` value's lane, and whether an item is on its way to run
/// them. Every operation (mutation, read, snapshot) goes through this one FIFO, so their order is the order they
/// were posted in, whatever the lane's priorities; one lane item runs a whole batch.
struct OwnedMailbox<Value: Sendable>: Sendable {
    /// Runs on the lane with the value; returns what to do once the value is released (wake a waiter).
    typealias Entry = @Sendable (inout Value) -> (@Sendable () -> Void)?

    private var entries: Deque<Entry> = []
    /// The generation of the lane item that will run the entries, or nil when none is scheduled.
    private var scheduled: UInt64?
    private var generation: UInt64 = 0

    /// Appends an entry; returns the generation of a lane item to schedule, if none is on its way.
    mutating func post(_ entry: @escaping Entry) -> UInt64? {
        entries.append(entry)
        guard scheduled == nil else { return nil }
        return nextGeneration()
    }

    /// Takes every entry posted so far (a lane item runs them in order).
    mutating func takeAll() -> Deque<Entry> {
        defer { entries = [] }
        return entries
    }

    /// The running lane item is done: returns the generation of the next item to schedule if more entries came.
    mutating func drained() -> UInt64? {
        if entries.isEmpty {
            scheduled = nil
            return nil
        }
        return nextGeneration()
    }

    /// A lane item finished. If it never ran (someone cancelled everything on a shared lane), another takes its
    /// place, so no entry is ever lost; returns its generation.
    mutating func itemFinished(_ finished: UInt64) -> UInt64? {
        guard scheduled == finished else { return nil }
        return drained()
    }

    private mutating func nextGeneration() -> UInt64 {
        generation += 1
        scheduled = generation
        return generation
    }
}

/// A synchronous call's body and result, handed to the lane while the caller blocks.
final class BlockingCall<Value, Result>: @unchecked Sendable {
    // @unchecked Sendable: the caller writes `body` before posting the call (the mailbox lock orders that before
    // the lane reads it); the lane writes `outcome` and clears `body` before signalling `done`, and the caller reads
    // `outcome` only after `done.wait()` returns. No two threads ever touch the fields at the same time.
    private var body: ((inout Value) throws -> Result)?
    private var outcome: Swift.Result<Result, any Error>?
    let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping (inout Value) throws -> Result) { self.body = body }

    /// On the lane: runs the body once and drops it (so `withoutActuallyEscaping` sees it released).
    func run(_ value: inout Value) {
        guard let body else { return }
        self.body = nil
        do { outcome = .success(try body(&value)) } catch { outcome = .failure(error) }
    }

    /// On the caller, after the lane signalled: the body's result.
    func result() throws -> Result {
        try outcome!.get()
    }
}
