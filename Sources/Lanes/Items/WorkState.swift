/// Where a work item is in its life.
///
/// ```swift
/// if item.state == .running { showSpinner() }
/// ```
public enum WorkState: Sendable, Equatable, CustomStringConvertible {
    /// Created, not yet in a queue.
    case idle
    /// In a queue, waiting for dependencies or for a free slot.
    case pending
    /// The body is running.
    case running
    /// The body returned a value.
    case succeeded
    /// The body threw, a dependency failed under the `.skip` policy, or the item timed out.
    case failed
    /// Cancelled before or while it ran.
    case cancelled

    /// Whether the item has finished, one way or another.
    public var isFinished: Bool {
        switch self {
        case .succeeded, .failed, .cancelled: true
        case .idle, .pending, .running: false
        }
    }

    public var description: String {
        switch self {
        case .idle: "idle"
        case .pending: "pending"
        case .running: "running"
        case .succeeded: "succeeded"
        case .failed: "failed"
        case .cancelled: "cancelled"
        }
    }
}

/// How an item finished, type-erased (internal).
enum Outcome: Sendable {
    case success(any Sendable)
    case failure(any Error)
    case cancelled
    case skipped(dependency: String)

    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }

    /// The error of an outcome that is not a success (`CancellationError` for a cancelled one), nil for a success.
    func error(label: String) -> (any Error)? {
        switch self {
        case .success: nil
        case .failure(let error): error
        case .cancelled: CancellationError()
        case .skipped(let dependency): LanesError.dependencyFailed(item: label, dependency: dependency)
        }
    }

    var state: WorkState {
        switch self {
        case .success: .succeeded
        case .failure, .skipped: .failed
        case .cancelled: .cancelled
        }
    }

    func typed<Output: Sendable>(_: Output.Type, label: String) -> Result<Output, any Error> {
        // The body that produced a value was built from a closure returning `Output`.
        if case .success(let value) = self { return .success(value as! Output) }
        return .failure(error(label: label)!)
    }
}
