import Lanes

/// The loader's bookkeeping, guarded by its lock: one entry per key in flight, each with its requesters counted by
/// priority. Methods only change state and say what to do; the loader does it after releasing the lock.
struct LoaderState<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    typealias Deliver = @Sendable (Result<Value, any Error>) -> Void
    /// Makes the work item for a key, given its priority, its run number and the loader's epoch.
    typealias MakeItem = (WorkPriority, UInt64, UInt64) -> WorkItem<Value>

    struct Requester: Sendable {
        let id: UInt64
        var priority: WorkPriority
        /// nil for the loader's own prefetches, whose results only go to the cache.
        let deliver: Deliver?
    }

    struct Entry: Sendable {
        /// Stable for the entry's life: requesters refer to it.
        let id: UInt64
        /// The item working for the entry, and its run number (a new one if the item has to be restarted).
        var item: WorkItem<Value>
        var run: UInt64
        var epoch: UInt64
        /// In request order, so results are delivered in that order.
        var requesters: [Requester] = []
        /// How many requesters ask at each priority level.
        var levels = [Int](repeating: 0, count: WorkPriority.allCases.count)
        /// The priority last given to the item.
        var applied: WorkPriority
        /// Whether a thread is busy giving the item its priority (only one does at a time).
        var applying = false
        /// The loader's own prefetch request for this key, if any.
        var prefetch: UInt64?

        /// The highest priority any requester asks for.
        var wanted: WorkPriority {
            var level = levels.count - 1
            while level > 0, levels[level] == 0 { level -= 1 }
            return WorkPriority(rawValue: level)!
        }

        mutating func add(_ requester: Requester) {
            requesters.append(requester)
            levels[requester.priority.rawValue] += 1
        }
    }

    enum Joined {
        /// A new item was made for the key: enqueue it.
        case created(entry: UInt64, requester: UInt64, item: WorkItem<Value>)
        /// The request joined the key's item; `reprioritize` when the item's priority must change.
        case joined(entry: UInt64, requester: UInt64, reprioritize: Bool)
        /// The loader already prefetches the key.
        case alreadyPrefetching
    }

    var entries: [Key: Entry] = [:]
    var nextID: UInt64 = 1
    var epoch: UInt64 = 0
    var stats = ContentLoaderStats()

    private mutating func makeID() -> UInt64 {
        defer { nextID &+= 1 }
        return nextID
    }

    /// Adds a requester for `key`, joining the item in flight or making one.
    mutating func join(_ key: Key, priority: WorkPriority, deliver: Deliver?, makeItem: MakeItem) -> Joined {
        if deliver == nil, let entry = entries[key], entry.prefetch != nil, !entry.item.isCancelled {
            return .alreadyPrefetching
        }
        let requester = Requester(id: makeID(), priority: priority, deliver: deliver)
        stats.requests += 1
        if deliver == nil { stats.prefetches += 1 }
        guard var entry = entries[key] else {
            let run = makeID()
            var entry = Entry(id: makeID(), item: makeItem(priority, run, epoch), run: run, epoch: epoch, applied: priority)
            entry.add(requester)
            if deliver == nil { entry.prefetch = requester.id }
            entries[key] = entry
            stats.scheduled += 1
            return .created(entry: entry.id, requester: requester.id, item: entry.item)
        }
        let before = entry.wanted
        entry.add(requester)
        if deliver == nil { entry.prefetch = requester.id }
        stats.joined += 1
        if entry.item.isCancelled {
            // Someone else cancelled the item (the loader forgets what it cancels itself): start it again for
            // everyone who is waiting.
            entry.run = makeID()
            entry.epoch = epoch
            entry.applied = entry.wanted
            entry.applying = false
            entry.item = makeItem(entry.wanted, entry.run, epoch)
            entries[key] = entry
            stats.scheduled += 1
            return .created(entry: entry.id, requester: requester.id, item: entry.item)
        }
        entries[key] = entry
        return .joined(entry: entry.id, requester: requester.id, reprioritize: entry.wanted != before)
    }

    enum Left {
        case nothing
        /// The last requester left: cancel the item.
        case cancel(WorkItem<Value>)
        /// The highest priority among those left changed.
        case reprioritize
    }

    /// Removes a requester. The item is cancelled only when it was the last one.
    mutating func leave(_ key: Key, entry entryID: UInt64, requester requesterID: UInt64) -> Left {
        guard var entry = entries[key], entry.id == entryID,
            let index = entry.requesters.firstIndex(where: { $0.id == requesterID })
        else { return .nothing }
        let before = entry.wanted
        let requester = entry.requesters.remove(at: index)
        entry.levels[requester.priority.rawValue] -= 1
        if entry.prefetch == requesterID { entry.prefetch = nil }
        if entry.requesters.isEmpty {
            entries.removeValue(forKey: key)
            return .cancel(entry.item)
        }
        entries[key] = entry
        return entry.wanted != before ? .reprioritize : .nothing
    }

    /// Changes one requester's priority; true when the item's priority must follow.
    mutating func setPriority(
        _ priority: WorkPriority, key: Key, entry entryID: UInt64, requester requesterID: UInt64
    ) -> Bool {
        guard var entry = entries[key], entry.id == entryID,
            let index = entry.requesters.firstIndex(where: { $0.id == requesterID }),
            entry.requesters[index].priority != priority
        else { return false }
        let before = entry.wanted
        entry.levels[entry.requesters[index].priority.rawValue] -= 1
        entry.levels[priority.rawValue] += 1
        entry.requesters[index].priority = priority
        entries[key] = entry
        return entry.wanted != before
    }

    /// The priority to give the key's item next, or nil when it is up to date or another thread is giving it. The
    /// thread that gets a value sets it on the item and calls again with `continuing` until it gets nil, so the last
    /// priority set is always the one wanted, however requesters race.
    mutating func nextPriority(_ key: Key, entry entryID: UInt64, continuing: Bool) -> (WorkItem<Value>, WorkPriority)? {
        guard var entry = entries[key], entry.id == entryID else { return nil }
        if entry.applying, !continuing { return nil }
        let wanted = entry.wanted
        if wanted == entry.applied {
            entry.applying = false
            entries[key] = entry
            return nil
        }
        entry.applying = true
        entry.applied = wanted
        entries[key] = entry
        return (entry.item, wanted)
    }

    /// The loader's prefetch request for `key`, if it has one.
    func prefetchRequest(_ key: Key) -> (entry: UInt64, requester: UInt64)? {
        guard let entry = entries[key], let requester = entry.prefetch else { return nil }
        return (entry.id, requester)
    }

    /// Whether the entry is still waiting for a result that will come.
    func isPending(_ key: Key, entry entryID: UInt64) -> Bool {
        guard let entry = entries[key], entry.id == entryID else { return false }
        return !entry.item.isCancelled
    }

    enum Finished {
        /// The run was current: deliver to its requesters.
        case deliver([Deliver])
        /// Everyone had left (or the loader was invalidated): nobody to tell.
        case stale
    }

    /// The body of run `run` returned (`succeeded`) or threw (`cancelled` when it had been cancelled). Returns whom
    /// to tell and whether the result may be cached.
    mutating func finish(_ key: Key, run: UInt64, epoch runEpoch: UInt64, succeeded: Bool, cancelled: Bool)
        -> (finished: Finished, cacheable: Bool)
    {
        if succeeded { stats.completed += 1 } else if !cancelled { stats.failed += 1 }
        guard let entry = entries[key], entry.run == run else {
            if succeeded { stats.staleDropped += 1 }
            // A value nobody waits for any more is still good for the cache, unless the loader was invalidated since.
            return (.stale, succeeded && runEpoch == epoch)
        }
        entries.removeValue(forKey: key)
        return (.deliver(entry.requesters.compactMap(\.deliver)), succeeded || !cancelled)
    }

    /// Forgets every entry (the screen is gone) and returns the items to cancel.
    mutating func invalidate() -> [WorkItem<Value>] {
        epoch &+= 1
        let items = entries.values.map(\.item)
        entries.removeAll()
        return items
    }
}
