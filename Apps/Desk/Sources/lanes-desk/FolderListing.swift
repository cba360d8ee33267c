import Dispatch
import Lanes

/// Lists a `--folder` off the main thread, a batch at a time (``FolderWalk``), and hands each batch to the main
/// thread as it comes: the first small (the first screen shows at once), the rest larger. The next batch is asked for
/// only when the last one has been handed over, so the main thread never has more than one batch to take in.
///
/// ```swift
/// let listing = FolderListing(folder: "/photos") { batch, done in
///     library.append(batch)
/// }
/// ```
@MainActor
final class FolderListing {
    /// Entries in the first batch and in each one after it.
    static let firstBatch = 200, batch = 1000

    /// On Lanes' shared pool (not the app's background pool, capped at the lowest OS level): listing is short
    /// system calls, and what the first screen waits for.
    private let queue = WorkQueue("folder listing", maxConcurrency: 1)
    private let deliver: @MainActor ([PhotoEntry], _ done: Bool) -> Void
    private var item: WorkItem<Step>?
    /// Batches handed over, entries listed, and when the listing started and ended (uptime ns; 0 until then).
    private(set) var batches = 0, listed = 0
    private(set) var startedAt = DispatchTime.now().uptimeNanoseconds, firstBatchAt: UInt64 = 0, finishedAt: UInt64 = 0
    /// Folders that could not be read (`path: reason`), known once the listing ends.
    private(set) var unreadableFolders: [String] = []

    var isDone: Bool { finishedAt != 0 }

    init(folder: String, deliver: @escaping @MainActor ([PhotoEntry], _ done: Bool) -> Void) {
        self.deliver = deliver
        list(FolderWalk(root: folder), limit: Self.firstBatch)
    }

    private struct Step: Sendable {
        let walk: FolderWalk
        let batch: [PhotoEntry]
    }

    private func list(_ walk: FolderWalk, limit: Int) {
        let item = queue.add(label: "list folder", priority: .visible) { ctx -> Step in
            var walk = walk
            let batch = walk.next(limit: limit, isCancelled: { ctx.isCancelled })
            return Step(walk: walk, batch: batch)
        }
        self.item = item
        item.onMainCompletion { [weak self] result in
            guard let self, case .success(let step) = result else { return }
            batches += 1
            if firstBatchAt == 0 { firstBatchAt = DispatchTime.now().uptimeNanoseconds }
            listed += step.batch.count
            if step.walk.isDone {
                finishedAt = DispatchTime.now().uptimeNanoseconds
                unreadableFolders = step.walk.unreadableFolders
            } else {
                list(step.walk, limit: Self.batch)
            }
            deliver(step.batch, step.walk.isDone)
        }
    }

    /// Stops listing (the app is closing).
    func cancel() { item?.cancel() }
}
