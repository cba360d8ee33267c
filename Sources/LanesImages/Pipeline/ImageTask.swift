import Lanes
import LanesLists
import Synchronization

/// A request in flight: cancel it, or change its priority as its cell moves (visible ↔ prefetch). A thin layer over
/// the loader's `ContentRequest` that adds what a caller with a completion handler needs.
///
/// Its completion is called exactly once: with the image, with the error, or with `CancellationError` after
/// ``cancel()`` (a loader's request, which a binding withdraws when its cell shows another row, is told nothing).
/// Cancelling withdraws this request only; the stages it used stop when no other request needs them.
///
/// ```swift
/// let task = pipeline.load(request, priority: .visible) { result in cell.image = try? result.get() }
/// task.priority = .prefetch   // scrolled near the edge
/// task.cancel()               // scrolled away: no delivery, the transfer stops if nobody else wants it
/// ```
public final class ImageTask: Sendable {
    /// What this task loads.
    public var request: ImageRequest { loading.key }

    private let loading: ContentRequest<ImageRequest, Bitmap>
    private let end: End
    /// The priority it was made at (what a task answered from the cache keeps).
    private let initialPriority: WorkPriority

    init(_ loading: ContentRequest<ImageRequest, Bitmap>, priority: WorkPriority, end: End) {
        self.loading = loading
        self.initialPriority = priority
        self.end = end
    }

    /// How urgent the task is. Raising it promotes every stage it waits on (down to the transfer) at once.
    public var priority: WorkPriority {
        get { loading.priority ?? initialPriority }
        set { if !isFinished { loading.setPriority(newValue) } }
    }

    /// Withdraws the request; its completion gets `CancellationError` (unless it has already completed).
    public func cancel() {
        guard end.claim(as: End.cancelled) else { return }
        loading.cancel()
        end.deliver(.failure(CancellationError()))
    }

    /// Whether ``cancel()`` was called before the task completed.
    public var isCancelled: Bool { end.state.load(ordering: .acquiring) == End.cancelled }

    /// Whether the task completed (with an image or an error) or was cancelled.
    public var isFinished: Bool { end.isFinished }

    /// How a task ends, once: made before the loader's request (which may answer before it returns), so that its
    /// result and a ``cancel()`` race for one completion.
    final class End: Sendable {
        static let pending: UInt8 = 0, completed: UInt8 = 1, cancelled: UInt8 = 2
        let state = Atomic<UInt8>(End.pending)
        let deliver: @Sendable (Result<Bitmap, any Error>) -> Void

        init(_ deliver: @escaping @Sendable (Result<Bitmap, any Error>) -> Void) { self.deliver = deliver }

        var isFinished: Bool { state.load(ordering: .acquiring) != End.pending }

        /// Ends the task as `ending`, unless it has ended already.
        func claim(as ending: UInt8) -> Bool {
            state.compareExchange(expected: End.pending, desired: ending, ordering: .acquiringAndReleasing).exchanged
        }

        /// The loader's result arrived.
        func complete(_ result: Result<Bitmap, any Error>) {
            if claim(as: End.completed) { deliver(result) }
        }
    }
}
