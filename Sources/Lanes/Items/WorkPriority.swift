/// How urgent a work item is. Higher levels run first; within a level items run in the order they became ready.
///
/// The levels follow what a list on screen needs:
///
/// ```swift
/// let render = charts.add(priority: .visible) { ctx in try drawChart(ctx) }
/// render.priority = .prefetch   // the row scrolled out of view but is still near
/// ```
public enum WorkPriority: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    /// Work nobody waits for: cleanup, cache trimming, indexing.
    case background = 0
    /// Long-running work the user asked for but does not watch.
    case utility = 1
    /// Speculative work for content about to appear (near-visible rows).
    case prefetch = 2
    /// The default.
    case normal = 3
    /// Work whose result is on screen now.
    case visible = 4

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .background: "background"
        case .utility: "utility"
        case .prefetch: "prefetch"
        case .normal: "normal"
        case .visible: "visible"
        }
    }

    static let count = 5
}

/// What a dependent does when one of its dependencies fails or is cancelled.
///
/// ```swift
/// try upload.addDependency(compress, policy: .cancel)
/// ```
public enum DependencyPolicy: Sendable, Equatable {
    /// Run the dependent anyway once every dependency has finished (the default for plain edges, as OperationQueue does).
    case run
    /// Cancel the dependent at once (the default for typed edges, which need the dependency's output).
    case cancel
    /// Do not run the dependent's body; it finishes at once as skipped (its `value` throws
    /// ``LanesError/dependencyFailed(item:dependency:)``).
    case skip
    /// Do not run the dependent's body; it finishes at once as failed with the dependency's error (a cancelled
    /// dependency gives `CancellationError`), so the end of a chain tells why it failed.
    case fail
}

/// What a consumer (an item made with `consuming:`) does when its input fails or is cancelled. It needs the input's
/// value, so unlike ``DependencyPolicy`` there is no "run anyway".
///
/// ```swift
/// let thumbnail = filters.add(consuming: download, policy: .skip) { data, ctx in try shrink(data, ctx) }
/// ```
public enum InputPolicy: Sendable, Equatable {
    /// Cancel the consumer at once (the default).
    case cancel
    /// Do not run the consumer's body; it finishes at once as skipped (its `value` throws
    /// ``LanesError/dependencyFailed(item:dependency:)``).
    case skip
    /// Do not run the consumer's body; it finishes at once as failed with the input's error (`CancellationError`
    /// for a cancelled input): a chain's last item fails as its first step did.
    case fail

    /// The same rule as a plain edge's policy.
    var dependencyPolicy: DependencyPolicy {
        switch self {
        case .cancel: .cancel
        case .skip: .skip
        case .fail: .fail
        }
    }
}
