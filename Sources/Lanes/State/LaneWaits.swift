/// The process-wide "who waits for whom" graph of blocking calls between serial lanes, used to refuse a blocking
/// call that would close a cycle (and so deadlock) instead of making it.
///
/// A thread *holds* a lane while it runs one of that lane's items (the core's `CurrentLane`), while it is the main
/// queue, and while it takes part in a concurrent enumeration (a pseudo-lane per run, see `HeldRun`). When such a
/// thread blocks until lane `L` has run something, every lane it holds waits for `L`: an edge `held → L`. Every
/// edge names a lane that is really blocked, so a cycle in the graph is a real deadlock, never a guess; and since
/// edges are added under one lock, of two calls that would cross (A waits for B while B waits for A) the second
/// one is refused and the first completes.
enum LaneWaits {
    /// A lane as the graph sees it.
    struct Lane: Sendable, Hashable {
        let id: UInt64
        let name: String
    }

    private struct Edge {
        let token: UInt64
        let from: UInt64
        let to: Lane
    }

    private struct Graph {
        var nextToken: UInt64 = 0
        var edges: [Edge] = []

        /// A path of lanes from `start` to any of `goals`, following edges, or nil.
        func path(from start: UInt64, to goals: Set<UInt64>) -> [UInt64]? {
            if goals.contains(start) { return [start] }
            var previous: [UInt64: UInt64] = [start: start]
            var frontier = [start]
            while !frontier.isEmpty {
                var next: [UInt64] = []
                for node in frontier {
                    for edge in edges where edge.from == node && previous[edge.to.id] == nil {
                        previous[edge.to.id] = node
                        if goals.contains(edge.to.id) {
                            var path = [edge.to.id]
                            var cursor = edge.to.id
                            while cursor != start {
                                cursor = previous[cursor]!
                                path.append(cursor)
                            }
                            return path.reversed()
                        }
                        next.append(edge.to.id)
                    }
                }
                frontier = next
            }
            return nil
        }

        func name(of id: UInt64, known: [Lane]) -> String {
            if let lane = known.first(where: { $0.id == id }) { return lane.name }
            if let edge = edges.first(where: { $0.to.id == id }) { return edge.to.name }
            return "#\(id)"
        }
    }

    private static let graph = LockedValue(Graph())
    private static let mainLane = Lane(id: WorkQueue.main.id, name: WorkQueue.main.name)

    /// The lanes the calling thread holds, innermost last.
    static func heldLanes() -> [Lane] {
        var held: [Lane] = []
        if MainQueue.isCurrent { held.append(mainLane) }
        if let run = HeldRun.current, !held.contains(run) { held.append(run) }
        if let id = CurrentLane.queueID, !held.contains(where: { $0.id == id }) {
            // The name is filled in from the graph if this lane is part of a cycle (only waited-on lanes can be).
            held.append(Lane(id: id, name: ""))
        }
        return held
    }

    /// Records that the calling thread is about to block until `target` runs something. Returns a token for
    /// ``end(_:)``, or nil when the thread holds no lane (nothing can wait on it, so nothing to record).
    /// - Throws: ``LanesError/wouldDeadlock(_:)`` naming the lanes, if the wait would close a cycle.
    static func begin(_ operation: String, on target: Lane) throws(LanesError) -> UInt64? {
        let held = heldLanes()
        guard !held.isEmpty else { return nil }
        let verdict: Result<UInt64, LanesError> = graph.withLock { graph in
            let goals = Set(held.map(\.id))
            if let path = graph.path(from: target.id, to: goals) {
                let known = held.filter { !$0.name.isEmpty } + [target]
                let holder = path.last!
                let names = (path + [target.id]).map { "lane '\(graph.name(of: $0, known: known))'" }
                let reason = "\(operation) on lane '\(target.name)' from lane '\(graph.name(of: holder, known: known))', "
                    + "which it waits on: " + names.joined(separator: " → ")
                return .failure(.wouldDeadlock(reason))
            }
            graph.nextToken += 1
            for lane in held { graph.edges.append(Edge(token: graph.nextToken, from: lane.id, to: target)) }
            return .success(graph.nextToken)
        }
        return try verdict.get()
    }

    /// The wait recorded by ``begin(_:on:)`` is over.
    static func end(_ token: UInt64?) {
        guard let token else { return }
        graph.withLock { graph in graph.edges.removeAll { $0.token == token } }
    }
}

/// The concurrent enumeration a thread is taking part in, as a pseudo-lane of the wait graph: the caller of
/// `concurrentForEach` waits for it, and its helper threads hold it, so a body that blocks on the caller's lane
/// from a helper thread is refused like one on the calling thread.
enum HeldRun {
    private static let key = ThreadLocalKey()

    /// Pseudo-lane ids live in the upper half of the id space, far from queue ids.
    static let firstID: UInt64 = 1 << 63

    static var current: LaneWaits.Lane? {
        guard let id = key.value else { return nil }
        return LaneWaits.Lane(id: id, name: "concurrent enumeration")
    }

    /// Runs `body` with the calling thread marked as taking part in run `id`.
    static func with<Result>(_ id: UInt64, _ body: () throws -> Result) rethrows -> Result {
        let outer = key.value
        key.value = id
        defer { key.value = outer }
        return try body()
    }
}
