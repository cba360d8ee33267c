/// The errors Lanes reports. Misuse of the API never hangs or crashes: it throws one of these.
///
/// Cancellation is not among them: every Lanes cancellation (``WorkContext/checkCancellation()``, a cancelled item's
/// result, an awaited item, an enumeration) is Swift's `CancellationError`, so one `catch is CancellationError`
/// handles them all.
///
/// ```swift
/// do {
///     try b.addDependency(a)
/// } catch LanesError.cycle(let path) {
///     print("refused:", path.joined(separator: " → "))
/// }
/// ```
public enum LanesError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Adding the dependency would close a cycle. The path lists item labels from the dependent around to itself.
    case cycle([String])
    /// An item was asked to depend on itself.
    case selfDependency(String)
    /// A concurrency limit below one was requested.
    case invalidLimit(Int)
    /// The item is already in a queue; dependencies must be added before it is enqueued, and it is enqueued once.
    case alreadyEnqueued(String)
    /// A dependency failed or was cancelled and the edge policy skipped or cancelled this item.
    case dependencyFailed(item: String, dependency: String)
    /// A typed edge carries the dependency's output into the body; it cannot be removed.
    case typedDependency(String)
    /// A blocking wait would wait on the lane it is running on (or on the main thread, which must never block).
    case wouldDeadlock(String)
    /// The work did not finish in time.
    case timedOut(String)

    public var description: String {
        switch self {
        case .cycle(let path): "dependency cycle: " + path.joined(separator: " → ")
        case .selfDependency(let label): "item '\(label)' cannot depend on itself"
        case .invalidLimit(let limit): "invalid concurrency limit \(limit): it must be at least 1"
        case .alreadyEnqueued(let label): "item '\(label)' is already enqueued"
        case .dependencyFailed(let item, let dependency):
            "item '\(item)' did not run because its dependency '\(dependency)' failed or was cancelled"
        case .typedDependency(let label): "the typed dependency on '\(label)' cannot be removed"
        case .wouldDeadlock(let reason): "refused a blocking wait that would deadlock: \(reason)"
        case .timedOut(let label): "item '\(label)' timed out"
        }
    }
}
