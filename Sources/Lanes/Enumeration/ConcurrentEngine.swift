import Dispatch
import Foundation
import Synchronization

/// What one call of a chunk body did: how many elements it finished from the start of its range, and the error
/// that stopped it, if any.
@usableFromInline
struct ChunkResult: Sendable {
    @usableFromInline let completed: Int
    @usableFromInline let error: (any Error)?

    @inlinable
    init(completed: Int, error: (any Error)?) {
        self.completed = completed
        self.error = error
    }
}

/// How a run ended.
@usableFromInline
struct RunOutcome: Sendable {
    /// The first error (a body's, or `CancellationError`), if any.
    @usableFromInline let error: (any Error)?
    /// The offsets whose bodies finished, when not all of them did (empty when the run was complete).
    @usableFromInline let finished: [Range<Int>]
    /// Whether every body ran and returned.
    @usableFromInline let isComplete: Bool
}

/// The engine under `concurrentForEach` and `concurrentMap`, free of generics so it is compiled once; the
/// `@inlinable` wrappers hand it a chunk body specialised for the collection and the closure.
///
/// It first runs a few elements inline, doubling the batch until about 20 µs have passed, to learn what one
/// element costs. If the rest is cheap (under ~50 µs) it finishes inline, so tiny enumerations cost a plain loop;
/// otherwise it splits the rest into chunks of about 50 µs (at least four per worker, for balance) that the calling
/// thread and up to `maxConcurrency - 1` helpers on Lanes' thread pool take one at a time.
@usableFromInline
enum ConcurrentEngine {
    /// The queue of the helper items, and of the `async` forms' loops (each an item the awaiting task's
    /// cancellation cancels).
    @usableFromInline static let helpers = WorkQueue("concurrent enumeration", maxConcurrency: 256)
    static let calibrationNanos: UInt64 = 20_000
    static let inlineNanos: Double = 50_000
    static let chunkNanos: Double = 50_000
    static let spinNanos: UInt64 = 30_000
    private static let runIDs = Atomic<UInt64>(HeldRun.firstID)

    @usableFromInline
    static func run(
        count: Int, maxConcurrency: Int?, priority: WorkPriority, context: WorkContext?, label: String,
        stop: EnumerationStop, body: @escaping @Sendable (Range<Int>) -> ChunkResult
    ) -> RunOutcome {
        let checkTask = withUnsafeCurrentTask { $0 != nil }
        let cancelled = { context?.isCancelled == true || (checkTask && Task.isCancelled) }
        // Calibrate inline.
        var offset = 0
        var batch = 1
        let start = DispatchTime.now().uptimeNanoseconds
        var elapsed: UInt64 = 0
        while offset < count {
            if cancelled() { return RunOutcome(error: CancellationError(), upTo: offset) }
            let result = body(offset..<min(count, offset + batch))
            offset += result.completed
            if let error = result.error { return RunOutcome(error: error, upTo: offset) }
            if stop.isStopped { return RunOutcome(error: nil, upTo: offset, of: count) }
            elapsed = DispatchTime.now().uptimeNanoseconds - start
            if elapsed >= calibrationNanos { break }
            batch *= 2
        }
        let remaining = count - offset
        guard remaining > 0 else { return RunOutcome(error: nil, finished: [], isComplete: true) }
        let workers = max(1, min(maxConcurrency ?? ProcessInfo.processInfo.activeProcessorCount, remaining))
        let perElement = Double(elapsed) / Double(offset)
        let byTime = max(1, Int(chunkNanos / max(perElement, 0.1)))
        if workers == 1 || perElement * Double(remaining) < inlineNanos {
            // Inline, in chunks of about 50 µs so cancellation is still noticed.
            while offset < count {
                if cancelled() { return RunOutcome(error: CancellationError(), upTo: offset) }
                let result = body(offset..<min(count, offset + byTime))
                offset += result.completed
                if result.error != nil || stop.isStopped { return RunOutcome(error: result.error, upTo: offset, of: count) }
            }
            return RunOutcome(error: nil, upTo: offset, of: count)
        }
        let chunkSize = max(1, min(byTime, remaining / (workers * 4)))
        let run = ConcurrentRun(
            start: offset, end: count, chunkSize: chunkSize, runID: runIDs.add(1, ordering: .relaxed).newValue,
            label: label, context: context, stop: stop, body: body)
        return run.execute(helpers: min(workers, run.chunkCount) - 1, priority: priority, checkTask: checkTask)
    }
}

extension RunOutcome {
    /// Stopped or failed during the inline part: offsets below `end` finished.
    init(error: (any Error)?, upTo end: Int, of count: Int = -1) {
        self.error = error
        self.isComplete = error == nil && end == count
        self.finished = isComplete ? [] : [0..<end]
    }
}

/// One parallel run: chunks of `start..<end` taken by the caller and helpers through an atomic counter.
final class ConcurrentRun: Sendable {
    let start: Int
    let end: Int
    let chunkSize: Int
    let chunkCount: Int
    let runID: UInt64
    let label: String
    let context: WorkContext?
    let stop: EnumerationStop
    let body: @Sendable (Range<Int>) -> ChunkResult

    private let nextChunk = Atomic<Int>(0)
    private let unfinishedChunks: Atomic<Int>
    private let done = DispatchSemaphore(value: 0)
    /// The first error, and chunks that did not finish every element (chunk index → elements finished).
    private let trouble = LockedValue<(error: (any Error)?, partial: [Int: Int])>((nil, [:]))

    init(
        start: Int, end: Int, chunkSize: Int, runID: UInt64, label: String, context: WorkContext?,
        stop: EnumerationStop, body: @escaping @Sendable (Range<Int>) -> ChunkResult
    ) {
        self.start = start
        self.end = end
        self.chunkSize = chunkSize
        self.chunkCount = (end - start + chunkSize - 1) / chunkSize
        self.runID = runID
        self.label = label
        self.context = context
        self.stop = stop
        self.body = body
        self.unfinishedChunks = Atomic(chunkCount)
    }

    func execute(helpers: Int, priority: WorkPriority, checkTask: Bool) -> RunOutcome {
        for _ in 0..<helpers {
            ConcurrentEngine.helpers.add(label: label, priority: priority) { [self] _ in
                HeldRun.with(runID) { participate(checkTask: false) }
            }
        }
        // The caller holds its lanes while the run lasts: a body on a helper thread that blocks on one of them is
        // refused by the wait graph. A fresh run id cannot close a cycle, so this never throws.
        let token = try? LaneWaits.begin(label, on: LaneWaits.Lane(id: runID, name: label))
        HeldRun.with(runID) { participate(checkTask: checkTask) }
        // The last chunks are about 50 µs long: poll briefly before sleeping, which would add a wake-up's latency.
        let spinUntil = DispatchTime.now().uptimeNanoseconds + ConcurrentEngine.spinNanos
        while unfinishedChunks.load(ordering: .acquiring) > 0, DispatchTime.now().uptimeNanoseconds < spinUntil {}
        done.wait()
        LaneWaits.end(token)
        return outcome()
    }

    /// Takes and runs chunks until none is left.
    private func participate(checkTask: Bool) {
        while true {
            let chunk = nextChunk.add(1, ordering: .relaxed).oldValue
            guard chunk < chunkCount else { return }
            let lower = start + chunk * chunkSize
            let range = lower..<min(end, lower + chunkSize)
            var completed = 0
            if context?.isCancelled == true || (checkTask && Task.isCancelled) {
                fail(CancellationError())
            } else if !stop.isStopped {
                let result = body(range)
                completed = result.completed
                if let error = result.error { fail(error) }
            }
            if completed < range.count { trouble.withLock { $0.partial[chunk] = completed } }
            if unfinishedChunks.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { done.signal() }
        }
    }

    private func fail(_ error: any Error) {
        trouble.withLock { if $0.error == nil { $0.error = error } }
        stop.stop()
    }

    private func outcome() -> RunOutcome {
        let (error, partial) = trouble.withLock { ($0.error, $0.partial) }
        if partial.isEmpty && error == nil { return RunOutcome(error: nil, finished: [], isComplete: true) }
        var finished = [0..<start]
        for chunk in 0..<chunkCount {
            let lower = start + chunk * chunkSize
            let upper = min(end, lower + chunkSize)
            let completed = partial[chunk] ?? (upper - lower)
            if completed > 0 { finished.append(lower..<(lower + completed)) }
        }
        return RunOutcome(error: error, finished: finished, isComplete: false)
    }
}
