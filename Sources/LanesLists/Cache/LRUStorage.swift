/// The single-threaded core of ``CostLimitedCache``: a dictionary from key to slot plus an intrusive doubly linked
/// list threaded through an array of slots, most recently used at the head. Every operation is O(1) (eviction is O(1)
/// per evicted entry). Freed slots are recycled through a free list, so steady churn allocates nothing. The image
/// pipeline's disk-cache index keeps its recency here too (package access).
@usableFromInline package struct LRUStorage<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline package struct Slot: Sendable {
        @usableFromInline package var key: Key
        @usableFromInline package var value: Value
        @usableFromInline package var cost: Int
        @usableFromInline var newer: Int
        @usableFromInline var older: Int
    }

    // The storage is `@usableFromInline` so that a lookup (`value(forKey:)`) specialises in the module that uses the
    // cache: unspecialised, every call looks up the slot and dictionary types' metadata at run time.
    @usableFromInline package internal(set) var slots: ContiguousArray<Slot?> = []
    private var free: [Int] = []
    @usableFromInline var index: [Key: Int] = [:]
    /// Most recently used slot, or -1.
    @usableFromInline var head = -1
    /// Least recently used slot, or -1.
    @usableFromInline var tail = -1
    package private(set) var totalCost = 0
    package var count: Int { index.count }

    /// An empty storage.
    @usableFromInline package init() {}

    /// The value for `key`, marked most recently used.
    @inlinable
    package mutating func value(forKey key: Key) -> Value? {
        guard let position = index[key] else { return nil }
        moveToHead(position)
        return slots[position]!.value
    }

    /// The value for `key` without touching its recency.
    package func peek(_ key: Key) -> Value? {
        guard let position = index[key] else { return nil }
        return slots[position]!.value
    }

    package func contains(_ key: Key) -> Bool { index[key] != nil }

    /// Stores `value` as most recently used, replacing any value for `key`. Returns the replaced value.
    package mutating func insert(_ value: Value, forKey key: Key, cost: Int) -> Value? {
        if let position = index[key] {
            let old = slots[position]!.value
            totalCost += cost - slots[position]!.cost
            slots[position]!.value = value
            slots[position]!.cost = cost
            moveToHead(position)
            return old
        }
        let slot = Slot(key: key, value: value, cost: cost, newer: -1, older: head)
        let position: Int
        if let reused = free.popLast() {
            position = reused
            slots[position] = slot
        } else {
            position = slots.count
            slots.append(slot)
        }
        if head >= 0 { slots[head]!.newer = position }
        head = position
        if tail < 0 { tail = position }
        index[key] = position
        totalCost += cost
        return nil
    }

    /// Removes the value for `key` and returns it.
    package mutating func removeValue(forKey key: Key) -> Value? {
        guard let position = index.removeValue(forKey: key) else { return nil }
        return release(position).value
    }

    /// Removes everything and returns the values (so the caller can release them outside its lock).
    package mutating func removeAll() -> [Value] {
        let values = slots.compactMap { $0?.value }
        slots = []
        free = []
        index = [:]
        head = -1
        tail = -1
        totalCost = 0
        return values
    }

    /// The least recently used key.
    package var oldestKey: Key? { tail >= 0 ? slots[tail]!.key : nil }

    /// Keys from most to least recently used.
    package var keysByRecency: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(count)
        var position = head
        while position >= 0 {
            keys.append(slots[position]!.key)
            position = slots[position]!.older
        }
        return keys
    }

    // MARK: List surgery

    @inlinable
    mutating func unlink(_ position: Int) {
        let slot = slots[position]!
        if slot.newer >= 0 { slots[slot.newer]!.older = slot.older } else { head = slot.older }
        if slot.older >= 0 { slots[slot.older]!.newer = slot.newer } else { tail = slot.newer }
    }

    @inlinable
    mutating func moveToHead(_ position: Int) {
        guard head != position else { return }
        unlink(position)
        slots[position]!.newer = -1
        slots[position]!.older = head
        if head >= 0 { slots[head]!.newer = position }
        head = position
        if tail < 0 { tail = position }
    }

    private mutating func release(_ position: Int) -> Slot {
        unlink(position)
        let slot = slots[position]!
        slots[position] = nil
        free.append(position)
        totalCost -= slot.cost
        return slot
    }
}
