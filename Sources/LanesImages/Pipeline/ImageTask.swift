import Lanes
import LanesLists
import Synchronization

/// A request in flight: cancel it, or change its priority as its cell moves (visible ↔ prefetch).
///
/// Its completion is called exactly once: with the image, with the error, or with `CancellationError` after
/// ``cancel()``. Cancelling withdraws this request only; the stages it used stop when no other request needs them.
///
/// ```swift
/// let task = pipeline.load(request, priority: .visible) { result in cell.image = try? result.get() }
/// task.priority = .prefetch   // scrolled near the edge
/// task.cancel()               // scrolled away: no delivery, the transfer stops if nobody else wants it
/// ```
public final class ImageTask: Sendable {
    /// What this task loads.
    public let request: ImageRequest

    private struct State: Sendable {
        /// The task's consumer of the stage (nil until attached, or for a cache hit).
        var claim: WorkClaim<StageKey, Bitmap>?
        var priority: WorkPriority
        var cancelled = false
    }

    private let state: LockedValue<State>
    /// Set by the first of completion and cancellation.
    private let ended = Atomic<Bool>(false)
    private let deliver: @Sendable (Result<Bitmap, any Error>) -> Void

    init(request: ImageRequest, priority: WorkPriority, deliver: @escaping @Sendable (Result<Bitmap, any Error>) -> Void) {
        self.request = request
        self.state = LockedValue(State(priority: priority))
        self.deliver = deliver
    }

    /// How urgent the task is. Raising it promotes every stage it waits on (down to the transfer) at once.
    public var priority: WorkPriority {
        get { state.withLock { $0.priority } }
        set {
            guard !isFinished else { return }
            let claim = state.withLock { state in
                state.priority = newValue
                return state.claim
            }
            claim?.setPriority(newValue)
        }
    }

    /// Withdraws the request; its completion gets `CancellationError` (unless it has already completed).
    public func cancel() {
        guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let claim = state.withLock { state in
            state.cancelled = true
            return state.claim
        }
        claim?.cancel()
        deliver(.failure(CancellationError()))
    }

    /// Whether ``cancel()`` was called before the task completed.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Whether the task completed (with an image or an error) or was cancelled.
    public var isFinished: Bool { ended.load(ordering: .acquiring) }

    /// Connects the task to its consumer of the stage (made at `priority`), passing on what happened meanwhile.
    func attach(_ claim: WorkClaim<StageKey, Bitmap>, madeAt priority: WorkPriority) {
        let (cancelled, wanted) = state.withLock { state in
            state.claim = claim
            return (state.cancelled, state.priority)
        }
        if cancelled {
            claim.cancel()
        } else if wanted != priority {
            claim.setPriority(wanted)
        }
    }

    /// The stage's result arrived.
    func complete(_ result: Result<Bitmap, any Error>) {
        guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
        deliver(result)
    }
}
