import Lanes

/// The state machine of one coalesced stage: its consumers, their priorities, and whether it still runs.
/// Every method returns what to do; the caller does it after releasing the lock.
struct StageState<Value: Sendable>: Sendable {
    typealias Deliver = @Sendable (Result<Value, any Error>) -> Void

    enum Phase: Sendable {
        case running
        case finished(Result<Value, any Error>)
        case cancelled
    }

    private struct Consumer: Sendable {
        var priority: WorkPriority
        let deliver: Deliver
    }

    private(set) var phase: Phase = .running
    private var consumers: [Int: Consumer] = [:]
    private var nextID = 0
    private(set) var priority: WorkPriority
    /// Whether a request (not only a downstream stage) ever consumed this stage: its result is then worth caching.
    private(set) var servesRequests = false

    init(priority: WorkPriority) {
        self.priority = priority
    }

    enum AddAction: Sendable {
        /// Joined; the stage's priority rose to the given one.
        case added(id: Int, raisedTo: WorkPriority?)
        /// The stage has already finished: deliver this now.
        case finished(Result<Value, any Error>)
        /// The stage was cancelled: make a new one.
        case gone
    }

    mutating func add(priority: WorkPriority, isRequest: Bool, deliver: @escaping Deliver) -> AddAction {
        switch phase {
        case .finished(let result): return .finished(result)
        case .cancelled: return .gone
        case .running: break
        }
        let id = nextID
        nextID += 1
        consumers[id] = Consumer(priority: priority, deliver: deliver)
        servesRequests = servesRequests || isRequest
        guard priority > self.priority else { return .added(id: id, raisedTo: nil) }
        self.priority = priority
        return .added(id: id, raisedTo: priority)
    }

    enum RemoveAction: Sendable {
        case none
        /// The remaining consumers want less: lower the stage to this.
        case lower(WorkPriority)
        /// That was the last consumer: cancel the stage.
        case cancel
    }

    mutating func remove(_ id: Int) -> RemoveAction {
        guard case .running = phase, consumers.removeValue(forKey: id) != nil else { return .none }
        if consumers.isEmpty {
            phase = .cancelled
            return .cancel
        }
        return recomputePriority().map { .lower($0) } ?? .none
    }

    /// The stage's new priority if one consumer's change moved it.
    mutating func setPriority(_ priority: WorkPriority, of id: Int) -> WorkPriority? {
        guard case .running = phase, consumers[id] != nil else { return nil }
        consumers[id]?.priority = priority
        return recomputePriority()
    }

    /// Finishes the stage; returns the consumers to deliver to (empty if it had already ended).
    mutating func finish(_ result: Result<Value, any Error>) -> [Deliver] {
        guard case .running = phase else { return [] }
        phase = .finished(result)
        defer { consumers = [:] }
        return consumers.keys.sorted().compactMap { consumers[$0]?.deliver }
    }

    private mutating func recomputePriority() -> WorkPriority? {
        guard let highest = consumers.values.map(\.priority).max(), highest != priority else { return nil }
        priority = highest
        return highest
    }
}
