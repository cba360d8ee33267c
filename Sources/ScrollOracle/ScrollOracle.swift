/// The best any scheduler could do for a scroll: which rows to render, and when, on `threads` render threads of
/// `renderSeconds` each, knowing the scroll path `horizon` seconds ahead (`.infinity`: all of it), so that the
/// fewest rows leave the screen without their content. Each row is rendered at most once (no waste) and kept.
///
/// The model: time from `origin` is cut into render-long slots, `threads` renders per slot. A row rendered in a slot
/// shows in every window of it that ends after the slot does. It may start no earlier than `horizon` before it first
/// comes on screen (what a scheduler seeing that far ahead can know). Choosing rows and slots to cover the most
/// counted windows is a weighted bipartite matching (rows × slots, value non-increasing in time), solved exactly as
/// a min-cost flow over time buckets (a segment tree gives each row its range of slots); the chosen rows are then
/// placed earliest deadline first, which keeps every one on time (unit jobs with integral releases). Rows of the
/// first layout must be shown but are not counted. The visible → shown latencies are those of that placement: a good
/// schedule among the optimal ones, not a proven minimum.
///
/// `knownAt` gives rows an earlier time at which their coming is known than the horizon does: the ballistic oracle
/// learns the whole path of a fling when the finger lifts (what a toolkit's scroller predicts), and nothing while it
/// is down (`horizon` 0 for every other row).
///
/// ```swift
/// let best = ScrollOracle.plan(windows: windows, renderSeconds: 0.002, threads: 2, horizon: 0.5, origin: 0)
/// print(best.unshown, best.visibleToShownMilliseconds.max() ?? 0)
/// let ballistic = ScrollOracle.plan(windows: windows, renderSeconds: 0.002, threads: 2, horizon: 0, origin: 0,
///                                   knownAt: [40: 1.2, 41: 1.2])
/// ```
public struct ScrollOracle: Sendable {
    /// Counted windows that ended (the row left the screen) without the row's content.
    public var unshown: Int
    /// Milliseconds from a counted window's start to the content, for every counted window shown while on screen
    /// (0 when the row was ready before it appeared).
    public var visibleToShownMilliseconds: [Double]
    /// Rows rendered.
    public var renders: Int
    /// The total value covered (counted windows shown, plus the first layout's weight): what the matching maximised.
    var value: Int
    /// Each rendered row's slot.
    var slots: [Int: Int]
    /// The slot length and the time of slot 0's start, to turn slots into times.
    var renderSeconds = 0.0, origin = 0.0

    /// When each rendered row's render ends in this schedule (seconds on the windows' clock): a trace to set beside
    /// a real run's.
    ///
    /// ```swift
    /// let best = ScrollOracle.plan(windows: windows, renderSeconds: 0.002, threads: 2, horizon: 0, origin: 0)
    /// if let ready = best.renderedBy[40] { print("row 40 ready at \(ready) s") }
    /// ```
    public var renderedBy: [Int: Double] {
        slots.mapValues { origin + Double($0 + 1) * renderSeconds }
    }

    public static func plan(
        windows: [VisibilityWindow], renderSeconds: Double, threads: Int, horizon: Double, origin: Double,
        knownAt: [Int: Double] = [:]
    ) -> ScrollOracle {
        let problem = SlotProblem(
            windows: windows, renderSeconds: renderSeconds, threads: threads, horizon: horizon, origin: origin,
            knownAt: knownAt)
        let chosen = problem.bestOptions()
        let slots = problem.placeEarliestDeadlineFirst(chosen)
        return problem.evaluate(slots: slots)
    }
}

/// The oracle's problem on the slot grid.
struct SlotProblem {
    struct Job {
        let row: Int
        /// The first slot it may use.
        let release: Int
        /// Its windows by start, each with the last slot that shows it and its value.
        let windows: [(window: VisibilityWindow, lastSlot: Int, value: Int)]
    }

    let jobs: [Job]
    let slotCount: Int
    let threads: Int
    let renderSeconds: Double
    let origin: Double

    init(
        windows: [VisibilityWindow], renderSeconds: Double, threads: Int, horizon: Double, origin: Double,
        knownAt: [Int: Double] = [:]
    ) {
        precondition(renderSeconds > 0 && threads >= 1)
        self.threads = threads
        self.renderSeconds = renderSeconds
        self.origin = origin
        var byRow: [Int: [VisibilityWindow]] = [:]
        for window in windows { byRow[window.row, default: []].append(window) }
        let finiteEnd = windows.map { $0.end.isFinite ? $0.end : $0.start }.max() ?? origin
        // Room at the end for every row, so a row still on screen when the script ends can always be shown.
        let slotCount = Int(((finiteEnd - origin) / renderSeconds).rounded(.up)) + 2 + byRow.count / threads + 1
        self.slotCount = slotCount
        let uncountedValue = windows.count + 1   // the first layout is shown first, whatever it costs
        jobs = byRow.keys.sorted().map { row in
            let own = byRow[row]!.sorted { $0.start < $1.start }
            let known = min(horizon.isFinite ? own[0].start - horizon : origin, knownAt[row] ?? .infinity)
            let release = max(0, Int(((known - origin) / renderSeconds - 1e-9).rounded(.up)))
            return Job(row: row, release: release, windows: own.map { window in
                let last = window.end.isFinite
                    ? Int(((window.end - origin) / renderSeconds + 1e-9).rounded(.down)) - 1 : slotCount - 1
                return (window, min(last, slotCount - 1), window.counted ? 1 : uncountedValue)
            })
        }
    }

    /// For each job, the index of the first window its render covers (nil: not rendered), maximising the value
    /// covered.
    func bestOptions() -> [Int?] {
        // Time buckets: slot ranges within which every job's options agree.
        var cuts = Set([0, slotCount])
        for job in jobs {
            cuts.insert(min(job.release, slotCount))
            for window in job.windows where window.lastSlot >= job.release { cuts.insert(window.lastSlot + 1) }
        }
        let bounds = cuts.sorted()
        let buckets = bounds.count - 1
        var bucketOf: [Int: Int] = [:]
        for (index, bound) in bounds.enumerated() { bucketOf[bound] = index }

        // Nodes: source, sink, jobs, then a segment tree over the buckets.
        let source = 0, sink = 1, firstJob = 2
        let treeBase = firstJob + jobs.count
        var treeSize = 1
        while treeSize < buckets { treeSize *= 2 }
        var flow = MinCostFlow(nodes: treeBase + 2 * treeSize)
        for node in 1..<treeSize {
            flow.addEdge(from: treeBase + node, to: treeBase + 2 * node, capacity: .max / 4, cost: 0)
            flow.addEdge(from: treeBase + node, to: treeBase + 2 * node + 1, capacity: .max / 4, cost: 0)
        }
        for bucket in 0..<buckets {
            let slots = bounds[bucket + 1] - bounds[bucket]
            flow.addEdge(from: treeBase + treeSize + bucket, to: sink, capacity: slots * threads, cost: 0)
        }
        let most = jobs.map { $0.windows.reduce(0) { $0 + $1.value } }.max() ?? 0
        var optionEdges: [[(edge: Int, option: Int)]] = Array(repeating: [], count: jobs.count)
        for (index, job) in jobs.enumerated() {
            let node = firstJob + index
            flow.addEdge(from: source, to: node, capacity: 1, cost: 0)
            flow.addEdge(from: node, to: sink, capacity: 1, cost: most)   // not rendered
            var remaining = job.windows.reduce(0) { $0 + $1.value }
            for (option, window) in job.windows.enumerated() {
                defer { remaining -= window.value }
                guard window.lastSlot >= job.release else { continue }
                // Slots release...lastSlot, as buckets [from, to).
                let from = bucketOf[job.release]!, to = bucketOf[window.lastSlot + 1]!
                for treeNode in Self.cover(from, to, treeSize: treeSize) {
                    let edge = flow.addEdge(from: node, to: treeBase + treeNode, capacity: 1, cost: most - remaining)
                    optionEdges[index].append((edge, option))
                }
            }
        }
        _ = flow.run(source: source, sink: sink)
        return optionEdges.map { edges in edges.first { flow.flow($0.edge) > 0 }?.option }
    }

    /// The segment-tree nodes (1-based, leaves at `treeSize...`) covering leaves `from..<to`.
    static func cover(_ from: Int, _ to: Int, treeSize: Int) -> [Int] {
        var nodes: [Int] = []
        var low = from + treeSize, high = to + treeSize
        while low < high {
            if low & 1 == 1 { nodes.append(low); low += 1 }
            if high & 1 == 1 { high -= 1; nodes.append(high) }
            low /= 2
            high /= 2
        }
        return nodes
    }

    /// Slots for the chosen jobs: each slot takes up to `threads` released jobs, earliest deadline first (ties: the
    /// one needed on screen first).
    func placeEarliestDeadlineFirst(_ options: [Int?]) -> [Int: Int] {
        var pending = options.indices.compactMap { index -> (job: Int, release: Int, deadline: Int, needed: Double)? in
            guard let option = options[index] else { return nil }
            let window = jobs[index].windows[option]
            return (index, jobs[index].release, window.lastSlot, window.window.start)
        }
        pending.sort { $0.release < $1.release }
        var ready: [(job: Int, release: Int, deadline: Int, needed: Double)] = []
        var slots: [Int: Int] = [:]
        var next = 0, slot = 0
        while next < pending.count || !ready.isEmpty {
            if ready.isEmpty { slot = max(slot, pending[next].release) }
            while next < pending.count, pending[next].release <= slot { ready.append(pending[next]); next += 1 }
            ready.sort { ($0.deadline, $0.needed) < ($1.deadline, $1.needed) }
            for job in ready.prefix(threads) { slots[jobs[job.job].row] = slot }
            ready.removeFirst(min(threads, ready.count))
            slot += 1
        }
        return slots
    }

    /// What rendering each row in `slots` (row → slot) shows.
    func evaluate(slots: [Int: Int]) -> ScrollOracle {
        var unshown = 0, value = 0
        var latencies: [Double] = []
        for job in jobs {
            let slot = slots[job.row]
            let finish = slot.map { origin + Double($0 + 1) * renderSeconds }
            for window in job.windows {
                if let slot, let finish, slot <= window.lastSlot {
                    value += window.value
                    if window.window.counted { latencies.append(max(0, finish - window.window.start) * 1000) }
                } else if window.window.counted, window.window.end.isFinite {
                    unshown += 1
                }
            }
        }
        return ScrollOracle(
            unshown: unshown, visibleToShownMilliseconds: latencies, renders: slots.count, value: value, slots: slots,
            renderSeconds: renderSeconds, origin: origin)
    }
}
