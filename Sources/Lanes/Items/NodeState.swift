import Synchronization

/// The body of a work item, type-erased. The runner that starts the item takes it out of the node and drops it once
/// it has run; an item that finishes without running drops it then.
@usableFromInline
enum Body: Sendable {
    case sync(any SyncBody)
    case async(@Sendable (WorkContext) async throws -> any Sendable)
    case callback(@Sendable (WorkContext, @escaping @Sendable (Result<any Sendable, any Error>) -> Void) -> Void)
}

/// A synchronous body that keeps its item's output type. A closure is two words, so this struct fits an
/// existential's inline buffer: erasing the type costs no allocation (a wrapper closure returning `any Sendable`
/// would allocate a context per item).
@usableFromInline
protocol SyncBody: Sendable {
    func run(_ context: WorkContext) throws -> any Sendable
}

@usableFromInline
struct TypedSyncBody<Output: Sendable>: SyncBody {
    let body: @Sendable (WorkContext) throws -> Output

    @usableFromInline init(body: @escaping @Sendable (WorkContext) throws -> Output) { self.body = body }

    @usableFromInline func run(_ context: WorkContext) throws -> any Sendable { try body(context) }
}

/// What a failed dependency decided for an item before it could run (a plain value, cheap to test and copy).
enum Verdict: Sendable {
    case cancelled
    case skipped(dependency: String)
    case failed(any Error)

    var outcome: Outcome {
        switch self {
        case .cancelled: .cancelled
        case .skipped(let dependency): .skipped(dependency: dependency)
        case .failed(let error): .failure(error)
        }
    }
}

/// The rarely used part of a node's state (see `NodeState.rare`), boxed so that a plain item's state stays small:
/// making, moving and destroying it then touches one reference instead of a dozen fields.
final class NodeRare: @unchecked Sendable {
    // @unchecked Sendable: a box is owned by one node's `NodeState` and only read or written while that node's lock
    // is held (it is never handed out).
    var cancelHandlers: [@Sendable () -> Void] = []
    var completions: [@Sendable (Outcome) -> Void] = []
    var waiters: [UInt64: CheckedContinuation<Outcome?, Never>] = [:]
    var abandonedWaiters: Set<UInt64> = []
    var nextWaiter: UInt64 = 0
    var task: Task<Void, Never>? = nil
    /// What a failed dependency decided for an item that is not yet enqueued.
    var verdict: Verdict? = nil
    /// Set when the item is cancelled because it timed out: it then finishes failed with `LanesError.timedOut`.
    var timedOut = false
    /// Set by `WorkItem.keep()`: the item is never cancelled because its consumers left.
    var kept = false
    /// How many of `dependents` finished before this item did (they left; their edges stay until it finishes).
    var leftDependents: Int = 0
    /// Whether a dependent that owned this item left: from then on, the item is cancelled as soon as nothing
    /// needs it.
    var ownerLeft = false
    /// `WorkContext.onPriorityChange` handlers, the priority last passed to them, and whether a thread is passing one.
    var priorityHandlers: [@Sendable (WorkPriority) -> Void] = []
    var relayedPriority: WorkPriority? = nil
    var relaying = false

    /// The fields' defaults, read while a node has no box (never written: writes make the node's own box).
    static let none = NodeRare()
}

/// An edge between a dependent and one of its dependencies, kept on both ends.
struct Edge: Sendable {
    let node: WorkNode
    let policy: DependencyPolicy
    let typed: Bool
    /// Whether the dependent owns the dependency: when it finishes first (it was cancelled) and nothing else needs
    /// the dependency, the dependency is cancelled too. Typed edges own; plain edges do not.
    let owns: Bool
    /// The priority the dependent currently lends through this edge (kept on the dependent's side).
    var lent: WorkPriority?
}

/// Everything about a node that changes, guarded by the node's mutex. Methods return the effects to run once the lock
/// is released. The fields of ``NodeRare`` read and write as its own (`state.kept`).
@dynamicMemberLookup
struct NodeState {
    /// A plain tag (no payload), so testing it copies nothing; the outcome of a finished node is in `outcome`.
    enum Phase {
        case idle
        case pending
        case running
        case finished
    }

    var phase: Phase = .idle
    /// Set exactly when `phase` becomes `.finished`.
    var outcome: Outcome?
    var queue: WorkQueue?
    var body: Body?
    /// Whether `body` is still here (testing a plain flag is cheaper than testing an optional existential).
    var hasBody = true
    var cancelRequested = false
    /// What most items never use, behind one optional reference, created on first change. Its fields read through
    /// it (``subscript(dynamicMember:)``).
    var rare: NodeRare?
    /// The box, made on first use (for the setters below).
    @inline(__always)
    mutating func rareBox() -> NodeRare {
        if let rare { return rare }
        let box = NodeRare()
        rare = box
        return box
    }
    /// A field of the rare box: read as its default while there is no box, written by making it.
    @inline(__always)
    subscript<Field>(dynamicMember field: ReferenceWritableKeyPath<NodeRare, Field>) -> Field {
        get { (rare ?? NodeRare.none)[keyPath: field] }
        _modify { yield &rareBox()[keyPath: field] }
    }
    /// Whether anything still needs the item's outcome: a dependent that has not left, a task awaiting it, or a
    /// handle that asked to keep it.
    var isNeeded: Bool {
        guard let rare else { return !dependents.isEmpty }
        return rare.kept || !rare.waiters.isEmpty || dependents.count > rare.leftDependents
    }
    /// Unfinished dependencies, by identity.
    var dependencies = DependencyEdges()
    /// Items waiting on this one.
    var dependents = DependentEdges()
    var ownPriority: WorkPriority
    /// How many waiting dependents lend each priority level (inline: every dependency edge lends).
    var lent = LentLevels()

    /// A node made directly on `queue` (added without dependencies) starts pending there.
    init(body: Body, priority: WorkPriority, queue: WorkQueue?) {
        self.body = body
        self.ownPriority = priority
        if let queue {
            self.queue = queue
            phase = .pending
        }
    }

    var isFinished: Bool { phase == .finished }

    var publicState: WorkState {
        switch phase {
        case .idle: .idle
        case .pending: .pending
        case .running: .running
        case .finished: outcome?.state ?? .cancelled
        }
    }

    /// Moves to `.finished` and collects everything that must be told.
    mutating func finish(_ outcome: consuming Outcome, node: WorkNode, into effects: inout [Effect]) {
        let before = phase
        if before == .finished { return }
        phase = .finished
        node.finishedFlag.store(true, ordering: .releasing)
        if hasBody {
            body = nil
            hasBody = false
        }
        // Most items have no handlers, edges, waiters or observers: nothing to tell, nothing to test further.
        if rare == nil, dependents.isEmpty, dependencies.isEmpty, !WorkEvents.isObserved {
            self.outcome = consume outcome
            return
        }
        finishTelling(outcome, from: before, node: node, into: &effects)
    }

    /// The rest of ``finish(_:node:into:)`` for an item that has someone to tell, once it left the phase `before`.
    private mutating func finishTelling(
        _ outcome: consuming Outcome, from before: Phase, node: WorkNode, into effects: inout [Effect]
    ) {
        var finalState = outcome.state
        if self.timedOut, finalState == .cancelled {
            outcome = .failure(LanesError.timedOut(node.label))
            finalState = .failed
        }
        let kind: WorkEvent.Kind
        switch before {
        case .running, .finished: kind = .finished
        case .pending: kind = finalState == .cancelled ? .cancelled : .finished
        case .idle: kind = .cancelled
        }
        if let rare {
            if rare.task != nil { rare.task = nil }
            if !rare.cancelHandlers.isEmpty { rare.cancelHandlers = [] }
            if !rare.priorityHandlers.isEmpty { rare.priorityHandlers = [] }
        }
        if !dependents.isEmpty {
            let success = finalState == .succeeded
            if dependents.count > 1 { effects.reserveCapacity(effects.count + dependents.count + 1) }
            dependents.forEach { edge in
                effects.append(.dependencyFinished(dependent: edge.node, dependency: node, success: success))
            }
            dependents.removeAll()
        }
        if !dependencies.isEmpty {
            // It finished first (cancelled or skipped): each dependency takes back its loan and learns that one of
            // its dependents left, which cancels a dependency this one owned if nothing else needs it.
            dependencies.forEach { edge in
                effects.append(.dependentLeft(node: edge.node, lent: edge.lent, owns: edge.owns))
            }
            dependencies.removeAll()
        }
        if let rare {
            if !rare.waiters.isEmpty {
                effects.append(.resume(Array(rare.waiters.values), copy outcome))
                rare.waiters = [:]
            }
            if !rare.completions.isEmpty {
                effects.append(.complete(rare.completions, copy outcome))
                rare.completions = []
            }
        }
        if WorkEvents.isObserved { effects.append(.event(kind, node, queue, finalState)) }
        self.outcome = consume outcome
    }

    /// The effective priority changed from `old`: move the node in its queue and update what it lends.
    mutating func priorityChanged(
        from old: WorkPriority, to new: WorkPriority, node: WorkNode, into effects: inout [Effect]
    ) {
        guard new != old else { return }
        if let rare, !rare.priorityHandlers.isEmpty, !rare.relaying {
            rare.relaying = true
            effects.append(.relayPriority(node))
        }
        if case .pending = phase, let queue, dependencies.isEmpty {
            effects.append(.reprioritize(node, queue))
        }
        if dependencies.isEmpty { return }
        dependencies.modifyEach { edge in
            let previous = edge.lent
            edge.lent = new
            effects.append(.lend(node: edge.node, from: previous, to: new))
        }
    }
}

/// A side effect decided under a lock and run after it is released.
enum Effect: Sendable {
    case dependencyFinished(dependent: WorkNode, dependency: WorkNode, success: Bool)
    case becameReady(WorkNode, WorkQueue)
    case finishedUnrun(WorkNode, WorkQueue)
    case runHandlers([@Sendable () -> Void])
    case resume([CheckedContinuation<Outcome?, Never>], Outcome)
    case complete([@Sendable (Outcome) -> Void], Outcome)
    case cancelTask(Task<Void, Never>)
    case lend(node: WorkNode, from: WorkPriority?, to: WorkPriority?)
    /// A dependent of `node` finished before it: `node` takes back the loan and cancels itself if the dependent
    /// owned it and nothing else needs it.
    case dependentLeft(node: WorkNode, lent: WorkPriority?, owns: Bool)
    case reprioritize(WorkNode, WorkQueue)
    /// Pass the node's effective priority on to its `onPriorityChange` handlers.
    case relayPriority(WorkNode)
    case event(WorkEvent.Kind, WorkNode, WorkQueue?, WorkState)
    /// The runner moved this effect out of its list.
    case taken
}
