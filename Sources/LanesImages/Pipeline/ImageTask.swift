import Lanes

/// A request in flight: cancel it, or change its priority as its cell moves (visible ↔ prefetch).
///
/// Its completion is called exactly once: with the image, with the error, or with `CancellationError` after
/// ``cancel()``. Cancelling withdraws this request only; the stages it used stop when no other request needs them.
///
/// ```swift
/// let task = pipeline.load(request, priority: .visible, on: .main) { result in cell.image = try? result.get() }
/// task.priority = .prefetch   // scrolled near the edge
/// task.cancel()               // scrolled away: no delivery, the transfer stops if nobody else wants it
/// ```
public final class ImageTask: Sendable {
    /// What this task loads.
    public let request: ImageRequest

    private enum Phase: Sendable { case running, completed, cancelled }

    private struct State: Sendable {
        var phase = Phase.running
        var step: StageStep?
        var priority: WorkPriority
    }

    private let state: LockedValue<State>
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
            let step = state.withLock { state -> StageStep? in
                guard state.phase == .running, state.priority != newValue else { return nil }
                state.priority = newValue
                return state.step
            }
            step?.setPriority(newValue)
        }
    }

    /// Withdraws the request; its completion gets `CancellationError` (unless it has already completed).
    public func cancel() {
        let step = state.withLock { state -> StageStep?? in
            guard state.phase == .running else { return nil }
            state.phase = .cancelled
            defer { state.step = nil }
            return .some(state.step)
        }
        guard let step else { return }
        step?.cancel()
        deliver(.failure(CancellationError()))
    }

    /// Whether ``cancel()`` was called before the task completed.
    public var isCancelled: Bool { state.withLock { $0.phase == .cancelled } }

    /// Whether the task completed (with an image or an error) or was cancelled.
    public var isFinished: Bool { state.withLock { $0.phase != .running } }

    /// Connects the task to the stage it consumes (made at `priority`).
    func attach(_ step: StageStep, madeAt priority: WorkPriority) {
        enum Action { case cancel, reprioritise(WorkPriority), none }
        let action = state.withLock { state -> Action in
            switch state.phase {
            case .cancelled: return .cancel
            case .completed: return .none
            case .running:
                state.step = step
                return state.priority == priority ? .none : .reprioritise(state.priority)
            }
        }
        switch action {
        case .cancel: step.cancel()
        case .reprioritise(let priority): step.setPriority(priority)
        case .none: break
        }
    }

    /// The stage's result arrived.
    func complete(_ result: Result<Bitmap, any Error>) {
        let first = state.withLock { state -> Bool in
            guard state.phase == .running else { return false }
            state.phase = .completed
            state.step = nil
            return true
        }
        if first { deliver(result) }
    }
}
