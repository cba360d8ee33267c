import Synchronization
import DequeModule

/// Items admitted between two barriers. Segment 0 is the one allowed to run.
struct Segment {
    /// Unfinished non-barrier items admitted into this segment.
    var unfinished = 0
    /// The barrier that closes the segment, if any.
    var barrier: WorkNode?
    var barrierReady = false
    var barrierCancelled = false
    /// Ready items waiting for the barriers before them to finish.
    var held: [Entry] = []
}

/// A queue's barriers, one sub-state of ``QueueState``: the items admitted between two barriers form a segment, and
/// only the front segment's items may run. A barrier closes the segment it was admitted into and runs alone once
/// every item of its segment finished; then the next segment becomes the front and its held items go to the ready
/// buckets. With no barrier pending there is one open segment and nothing is ever held.
struct BarrierSegments {
    /// The absolute number of `segments[0]`: a node records the absolute number of its segment (`slot.segment`).
    var base = 0
    var segments: Deque<Segment> = [Segment()]
    /// Whether the front barrier is running (it runs alone: the queue's `running` is 1).
    var running = false

    /// Records `node` in the last segment (a barrier closes it and opens a new one) and returns the segment's index:
    /// 0 when nothing is ahead of it.
    mutating func admit(_ node: WorkNode) -> Int {
        let index = segments.count - 1
        node.slot.segment.store(base + index, ordering: .relaxed)
        if node.isBarrier {
            segments[index].barrier = node
            segments.append(Segment())
        } else {
            segments[index].unfinished += 1
        }
        return index
    }

    /// The index of a member's segment now (it may be negative or past the end for a node swept by a cancel-all).
    func index(of node: WorkNode) -> Int { node.slot.segment.load(ordering: .relaxed) - base }

    /// Holds a ready item of a later segment until the barriers before it finish.
    mutating func hold(_ node: WorkNode, at index: Int) {
        segments[index].held.append(Entry(node: node, generation: node.slot.generation.load(ordering: .relaxed)))
    }

    /// Whether the front barrier may start now: every item before it finished, and it is ready and not cancelled.
    var frontRunnable: Bool {
        guard let front = segments.first else { return false }
        return front.unfinished == 0 && front.barrierReady && !front.barrierCancelled && front.barrier != nil
    }

    /// Starts the front barrier (``frontRunnable`` was true).
    mutating func startFront() -> WorkNode? {
        guard let barrier = segments[0].barrier else { return nil }
        running = true
        segments[0].barrierReady = false
        return barrier
    }

    /// A member finished: returns the held items the segments it opened release, in order (the caller lists those
    /// still current).
    mutating func finished(_ node: WorkNode, ran: Bool) -> [Entry] {
        let index = index(of: node)
        var released: [Entry] = []
        if node.isBarrier {
            if ran {
                running = false
                released += advance()
            } else if index >= 0 && index < segments.count {
                segments[index].barrierCancelled = true
            }
        } else if index >= 0 && index < segments.count {
            segments[index].unfinished -= 1
        }
        return released + skipCancelled()
    }

    /// A popped barrier was cancelled before it started: the segments after it go on, as after a cancelled barrier
    /// that was never popped.
    mutating func unrun(_ node: WorkNode) -> [Entry] {
        guard node.isBarrier, running else { return [] }
        running = false
        return skipCancelled()
    }

    /// Moves past front segments that are empty and closed by a cancelled barrier.
    private mutating func skipCancelled() -> [Entry] {
        var released: [Entry] = []
        while let front = segments.first, front.unfinished == 0, front.barrierCancelled, !running, segments.count > 1 {
            released += advance()
        }
        return released
    }

    /// The front barrier finished (or was cancelled): the next segment becomes the front; returns its held items.
    private mutating func advance() -> [Entry] {
        guard segments.count > 1 else { return [] }
        segments.removeFirst()
        base += 1
        let held = segments[0].held
        segments[0].held = []
        return held
    }

    /// Cancel-all: takes every held item and every pending barrier (the sweep finishes them), marking the barriers
    /// cancelled so their segments open as their items finish.
    mutating func detachAll() -> [WorkNode] {
        var nodes: [WorkNode] = []
        for index in segments.indices {
            nodes += segments[index].held.map(\.node)
            segments[index].held = []
            if let barrier = segments[index].barrier {
                nodes.append(barrier)
                segments[index].barrierCancelled = true
            }
            segments[index].barrierReady = false
        }
        return nodes
    }

    /// Checks the segments' books (see ``InternalChecks``); `running` is the queue's count of running items.
    func _checkInvariants(running queueRunning: Int, fullScan: Bool, _ require: (Bool, @autoclosure () -> String) -> Void) {
        require(!segments.isEmpty && segments[segments.count - 1].barrier == nil, "the last segment is open")
        require(!running || queueRunning == 1, "a running barrier runs alone (running \(queueRunning))")
        require(!running || segments.count > 1, "a running barrier closes the front segment")
        require(segments.count > 1 || segments[0].held.isEmpty, "with no barrier pending nothing is held")
        guard fullScan else { return }
        for (index, segment) in segments.enumerated() {
            require(segment.unfinished >= 0, "segment \(index) unfinished \(segment.unfinished) >= 0")
            require(index == segments.count - 1 || segment.barrier != nil, "segment \(index) is closed by a barrier")
            require(index > 0 || segment.held.isEmpty, "the front segment holds nothing back")
            for entry in segment.held where entry.isCurrent {
                require(entry.node.slot.level.load(ordering: .relaxed) < 0, "held node \(entry.node.label) has no ready entry")
            }
        }
    }
}
