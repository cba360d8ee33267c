import Lanes

/// The bookkeeping of a ``SharedWork`` table, guarded by its lock: one entry per key in flight, each with its job and
/// its consumers counted by priority. Methods only change state and say what to do; the table does it after
/// releasing the lock.
struct SharedWorkState<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    typealias Deliver = @Sendable (Result<Value, any Error>) -> Void
    typealias Job = SharedJob<Key, Value>

    struct Consumer: Sendable {
        let id: UInt64
        var priority: WorkPriority
        /// nil for consumers that only want the work done (a prefetch).
        let deliver: Deliver?
    }

    struct Entry: Sendable {
        let job: Job
        /// In subscription order, so results are delivered in that order.
        var consumers: [Consumer] = []
        /// How many consumers ask at each priority level.
        var levels = [Int](repeating: 0, count: WorkPriority.allCases.count)

        /// The highest priority any consumer asks for.
        var wanted: WorkPriority {
            var level = levels.count - 1
            while level > 0, levels[level] == 0 { level -= 1 }
            return WorkPriority(rawValue: level)!
        }

        mutating func add(_ consumer: Consumer) {
            consumers.append(consumer)
            levels[consumer.priority.rawValue] += 1
        }
    }

    /// A new priority for a job, numbered so that the steering keeps only the latest.
    struct PriorityChange: Sendable {
        let priority: WorkPriority
        let version: UInt64
    }

    enum Subscribed {
        /// A job was made for the key: start it.
        case start(Job, consumer: UInt64)
        /// The consumer joined the key's job; its priority changes when `change` is set.
        case joined(Job, consumer: UInt64, change: PriorityChange?)
    }

    enum Left {
        case nothing
        /// The last consumer left: cancel the job.
        case cancel(Job)
        /// The highest priority among those left changed.
        case reprioritize(Job, PriorityChange)
    }

    private(set) var entries: [Key: Entry] = [:]
    private var nextID: UInt64 = 1
    /// How many times everything was cancelled: a job made in an older epoch was swept away.
    private(set) var epoch: UInt64 = 0

    private mutating func makeID() -> UInt64 {
        defer { nextID &+= 1 }
        return nextID
    }

    /// Adds a consumer for `key`, joining its job or making one with `makeJob(id, priority, epoch)`.
    mutating func subscribe(
        _ key: Key, priority: WorkPriority, deliver: Deliver?, makeJob: (UInt64, WorkPriority, UInt64) -> Job
    ) -> Subscribed {
        let consumer = Consumer(id: makeID(), priority: priority, deliver: deliver)
        guard var entry = entries[key] else {
            var entry = Entry(job: makeJob(makeID(), priority, epoch))
            entry.add(consumer)
            entries[key] = entry
            return .start(entry.job, consumer: consumer.id)
        }
        let before = entry.wanted
        entry.add(consumer)
        entries[key] = entry
        let change = entry.wanted == before ? nil : PriorityChange(priority: entry.wanted, version: makeID())
        return .joined(entry.job, consumer: consumer.id, change: change)
    }

    /// Removes a consumer. The job is cancelled only when it was the last one.
    mutating func leave(_ key: Key, job jobID: UInt64, consumer consumerID: UInt64) -> Left {
        guard var entry = entries[key], entry.job.id == jobID,
            let index = entry.consumers.firstIndex(where: { $0.id == consumerID })
        else { return .nothing }
        let before = entry.wanted
        let consumer = entry.consumers.remove(at: index)
        entry.levels[consumer.priority.rawValue] -= 1
        if entry.consumers.isEmpty {
            entries.removeValue(forKey: key)
            return .cancel(entry.job)
        }
        entries[key] = entry
        guard entry.wanted != before else { return .nothing }
        return .reprioritize(entry.job, PriorityChange(priority: entry.wanted, version: makeID()))
    }

    /// Changes one consumer's priority; returns the job's new priority when it moved.
    mutating func setPriority(_ priority: WorkPriority, key: Key, job jobID: UInt64, consumer consumerID: UInt64)
        -> PriorityChange?
    {
        guard var entry = entries[key], entry.job.id == jobID,
            let index = entry.consumers.firstIndex(where: { $0.id == consumerID }),
            entry.consumers[index].priority != priority
        else { return nil }
        let before = entry.wanted
        entry.levels[entry.consumers[index].priority.rawValue] -= 1
        entry.levels[priority.rawValue] += 1
        entry.consumers[index].priority = priority
        entries[key] = entry
        return entry.wanted == before ? nil : PriorityChange(priority: entry.wanted, version: makeID())
    }

    /// Whether the consumer still waits for a result that will come.
    func isActive(_ key: Key, job jobID: UInt64, consumer consumerID: UInt64) -> Bool {
        guard let entry = entries[key], entry.job.id == jobID else { return false }
        return entry.consumers.contains { $0.id == consumerID }
    }

    /// Ends the job: returns its consumers' deliveries, or nil when it had already ended (everyone left, or
    /// everything was cancelled).
    mutating func finish(_ key: Key, job jobID: UInt64) -> [Deliver]? {
        guard let entry = entries[key], entry.job.id == jobID else { return nil }
        entries.removeValue(forKey: key)
        return entry.consumers.compactMap(\.deliver)
    }

    /// Forgets every entry and returns the jobs to cancel.
    mutating func removeAll() -> [Job] {
        epoch &+= 1
        defer { entries.removeAll() }
        return entries.values.map(\.job)
    }
}
