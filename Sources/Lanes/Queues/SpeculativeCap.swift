import Synchronization
import DequeModule

/// The speculative cap, one sub-state of ``QueueState`` (``WorkQueue/setSpeculativeLimit(_:below:)``): items ready
/// below level `below` are speculative, and at most `limit` of them run at once, so the rest of the width stays free
/// for more urgent items. `below` 0 is no cap (the default): every check is then one comparison.
struct SpeculativeCap {
    var below = 0
    var limit = Int.max
    /// Live bucket entries below `below`.
    var live = 0
    /// Running items popped below `below`; their `slot.level` reads ``mark`` until they finish.
    var running = 0
    static let mark = -2

    /// Whether an item ready at `level` is speculative.
    @inline(__always) func covers(_ level: Int) -> Bool { level < below }

    /// Whether speculative items hold every slot they may.
    var isFull: Bool { running >= limit }

    /// Of `live` ready entries, those that may start now: all of them but the speculative ones beyond the slots they
    /// may still take.
    func runnable(of live: Int) -> Int {
        guard self.live > 0 else { return live }
        return live - self.live + min(self.live, max(0, limit - running))
    }

    /// A running speculative item gave its slot back.
    mutating func release(_ node: WorkNode) {
        guard running > 0, node.slot.level.load(ordering: .relaxed) == Self.mark else { return }
        node.slot.level.store(-1, ordering: .relaxed)
        running -= 1
    }

    /// Caps the items running below `level` at `limit` and recounts the live speculative entries of `buckets` (a rare
    /// call: O(ready items)).
    mutating func set(below level: Int, limit: Int, buckets: [Deque<Entry>], isLive: (Entry, Int) -> Bool) {
        below = level
        self.limit = limit
        live = 0
        for index in 0..<min(level, buckets.count) {
            for entry in buckets[index] where isLive(entry, index) { live += 1 }
        }
    }

    /// Checks the cap's books; `liveEntries` is the count of live bucket entries below `below` (full scans only).
    func _checkInvariants(running queueRunning: Int, liveEntries: Int?, _ require: (Bool, @autoclosure () -> String) -> Void) {
        require(below >= 0 && below < WorkPriority.count, "speculative level \(below) in 0..<\(WorkPriority.count)")
        require(limit >= 0, "speculative limit \(limit) >= 0")
        require(running >= 0 && running <= queueRunning, "speculative running \(running) in 0...running \(queueRunning)")
        require(live >= 0, "speculative live \(live) >= 0")
        require(below > 0 || live == 0, "no cap: no ready entry counted speculative")
        if let liveEntries { require(liveEntries == live, "speculative entries \(liveEntries) == \(live)") }
    }
}
