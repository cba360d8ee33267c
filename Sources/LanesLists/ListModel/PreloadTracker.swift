import Lanes

/// The adaptive preload for a list whose scrolling belongs to a toolkit (a `GtkListView`, a collection view): feed it
/// the viewport's offset as it moves, ask it which rows are worth preloading.
///
/// ``ListModel`` runs the same tracker inside; use this one when the toolkit owns the geometry and only tells you the
/// scroll position, once a frame or on every change. It follows ``AdaptivePreload``'s rules: nothing speculative at
/// rest, while the user jitters or right after a turn; rows ahead in proportion to the speed of a steady scroll or a
/// fling; everything dropped on a jump.
///
/// Told what a row costs (``planPreload(costs:threads:allThreads:itemsPerRow:)``), it plans the preload as
/// ``ListModel/planPreload(costs:threads:allThreads:)`` does: the rows the threads can have ready before they leave
/// the screen, skipping those too close to make it (``preloadRows(around:rowCount:)``), with the priorities to load
/// them at (``preloadPriority``, ``loadPriority(forRow:)``).
///
/// ```swift
/// var tracker = PreloadTracker()
/// // once a frame, with the toolkit's numbers (here rows of height 1, a viewport of 20 rows):
/// let extent = tracker.update(offset: scrollTop, at: clock.now, rowHeight: 1, viewportHeight: 20)
/// let window = extent.window(around: 40..<60, rowCount: 10_000)   // 40..<60 at rest; 40..<65 at 100 rows/s forward
/// ```
public struct PreloadTracker: Sendable {
    /// The settings the tracker follows.
    public private(set) var preload: AdaptivePreload
    /// The current speed estimate, in offset units per second (negative scrolling back; 0 at rest, while settling
    /// after a start, a turn or a jump).
    public private(set) var speed = 0.0
    /// The offsets of the current run (motion one way, since the list started moving, turned or jumped) over the
    /// last `window` seconds.
    private var samples: [(time: UInt64, offset: Double)] = []
    /// +1 forward, -1 backward, 0 before any motion or after a jump.
    private var sign = 0
    /// When the current run's first move happened.
    private var runStart: UInt64 = 0
    /// The path predicted at the last update that planned against a cost (nil otherwise).
    private var path: ScrollPath?
    /// The rows to preload after the last move, and the way the list last moved (forward until it first moves back).
    private var extent = PreloadExtent(ahead: 0, behind: 0, direction: .forward)
    /// Whether the list moves faster than rows on screen can be ready: the preload may take every thread.
    private var outruns = false
    private var lastOffset: Double?
    private var lastViewportHeight: Double?
    private var rowHeight = 0.0
    var direction: ScrollDirection { extent.direction }
    /// What the plan knows of a row's cost: the loader's estimate, and the threads its work may use (the cost's
    /// seconds are the estimate's at each update).
    private var costs: (estimate: CostEstimate, cost: PreloadCost)?
    private var cost: PreloadCost? {
        guard let costs, let seconds = costs.estimate.seconds else { return nil }
        var cost = costs.cost
        cost.seconds = seconds
        return cost
    }
    /// What a quick rendering costs, when the rows have a quick tier (``planQuickTier(costs:)``; nil: none).
    private var quickCosts: CostEstimate?
    /// The fling the toolkit predicted at its lift-off, from then until a touch or rest (nil: none).
    private var prediction: (path: ScrollPrediction, start: UInt64)?
    /// The rows the last ``preloadRows(around:rowCount:)`` answered (a plan keeps those still ahead).
    var planned = PreloadRows.empty
    /// When the offset last changed (the first update's time before any move; nil before any update).
    var lastMove: UInt64? { samples.last?.time }

    /// A tracker with `preload`'s settings (the defaults unless given).
    ///
    /// ```swift
    /// var eager = AdaptivePreload()
    /// eager.lead = 0.2
    /// var tracker = PreloadTracker(eager)
    /// let extent = tracker.update(offset: 0, at: clock.now, rowHeight: 1, viewportHeight: 20)
    /// ```
    public init(_ preload: AdaptivePreload = AdaptivePreload()) {
        self.preload = preload
    }

    /// Plans the preload against what a row costs, as ``ListModel/planPreload(costs:threads:allThreads:)`` does:
    /// `costs`' running estimate of the time to get one item ready (a loader's ``ContentLoader/costs``), on `threads`
    /// threads (`allThreads` when the list moves faster than rows on screen could be ready), `itemsPerRow` items a
    /// row (a grid's columns, when its rows are the lines). Until the estimate has a sample the lead is the fixed one.
    ///
    /// ```swift
    /// tracker.planPreload(costs: charts.costs, threads: 2, itemsPerRow: 5)   // a grid of five charts a line
    /// ```
    public mutating func planPreload(costs: CostEstimate, threads: Int, allThreads: Int? = nil, itemsPerRow: Int = 1) {
        let threads = max(1, threads)
        self.costs = (costs, PreloadCost(
            seconds: 0, threads: threads, allThreads: max(threads, allThreads ?? threads),
            itemsPerRow: max(1, itemsPerRow)))
    }

    /// Tells the plan that the rows have a quick tier (a binding's quick rendering, ``wantsQuick(forRow:)``) whose
    /// renderings cost `costs`' running estimate (a quick loader's ``ContentLoader/costs``; while it has no sample, too
    /// little to count). When the list moves faster than full content can be ready for the rows coming next, the plan
    /// then skips none of them: from the screen on, nearest first, they are preloaded for their quick renderings (as
    /// far as the threads can have those ready before each row leaves), then the rows the full plan had chosen. Without
    /// it the plan skips the rows too close for their full content, which leaves them blank on their first frame, and
    /// a fling caught before the skipped stretch ends finds nothing started.
    ///
    /// ```swift
    /// let sparklineTimes = CostEstimate()   // a quick loader's `costs`
    /// tracker.planPreload(costs: charts.costs, threads: 1, allThreads: 2)
    /// tracker.planQuickTier(costs: sparklineTimes)
    /// ```
    public mutating func planQuickTier(costs: CostEstimate) {
        quickCosts = costs
    }

    /// The viewport's top is at `offset` at `time` (nanoseconds of a monotonic clock, such as
    /// `DispatchTime.now().uptimeNanoseconds` or a `LaneClock`'s `now`). Returns the rows to preload now. An update
    /// that does not move keeps the last answer.
    ///
    /// Give the time the offset is drawn for when the toolkit has one (GTK's frame clock's frame time, a display
    /// link's timestamp): the speed and slow-down are estimated from these times, and a time taken whenever a
    /// callback happens to run jitters with the frame's own work, so a steady scroll looks like flicks and stops.
    ///
    /// ```swift
    /// let extent = tracker.update(offset: 120, at: clock.now, rowHeight: 44, viewportHeight: 880)
    /// ```
    @discardableResult
    public mutating func update(offset: Double, at time: UInt64, rowHeight: Double, viewportHeight: Double)
        -> PreloadExtent
    {
        move(to: offset, at: time, rowHeight: rowHeight, viewportHeight: viewportHeight)
        return extent
    }

    /// The viewport's top moved to `offset`: the direction follows, and the extent is the plan's, or `fixed` rows on
    /// each side (a ``ListPreload/fixed(ahead:behind:)`` preload's, which leaves the plan unfed: at rest, no path).
    mutating func move(
        to offset: Double, at time: UInt64, rowHeight: Double, viewportHeight: Double,
        fixed: (ahead: Int, behind: Int)? = nil
    ) {
        if let lastOffset, offset != lastOffset { extent.direction = offset > lastOffset ? .forward : .backward }
        lastOffset = offset
        self.rowHeight = rowHeight
        if let fixed { setExtent(ahead: fixed.ahead, behind: fixed.behind) } else {
            moved(to: offset, at: time, viewportHeight: viewportHeight)
        }
    }

    /// Starts the plan afresh with `preload`'s settings, from `offset` (nothing speculative until the list next
    /// moves steadily one way); the costs, the direction and the planned rows stay.
    mutating func restart(_ preload: AdaptivePreload, offset: Double, at time: UInt64) {
        self.preload = preload
        startRun(at: time, offset: offset, sign: 0)
    }

    /// The finger lifted at `time` with the list at `offset`, and the toolkit predicts the fling's path: the preload
    /// plans over all of it now (which rows appear when, and which the threads can have ready), and follows the
    /// prediction rather than the offsets' estimate until ``touchDown(at:)`` or rest. Call
    /// ``update(offset:at:rowHeight:viewportHeight:)`` as the list moves, as always.
    ///
    /// ```swift
    /// tracker.liftOff(.gtk(velocity: 2_400), offset: scrollTop, at: clock.now)
    /// ```
    public mutating func liftOff(_ prediction: ScrollPrediction, offset: Double, at time: UInt64) {
        guard prediction.velocity != 0, prediction.timeConstant > 0 else { return touchDown(at: time) }
        self.prediction = (prediction, time)
        extent.direction = prediction.velocity > 0 ? .forward : .backward
        lastOffset = offset
        guard rowHeight > 0, let viewportHeight = lastViewportHeight else { return }
        followPrediction(offset: offset, at: time, viewportHeight: viewportHeight)
    }

    /// A finger touched the list (it caught a fling, or starts a drag): the prediction is dropped, and the preload
    /// learns the motion from the offsets again.
    ///
    /// ```swift
    /// tracker.touchDown(at: clock.now)
    /// ```
    public mutating func touchDown(at time: UInt64) {
        guard prediction != nil else { return }
        prediction = nil
        startRun(at: time, offset: lastOffset ?? 0, sign: 0)
    }

    /// The rows to preload beyond `visible` after the last ``update(offset:at:rowHeight:viewportHeight:)``, within
    /// `0..<rowCount`: the extent's window, or with a cost-aware plan the rows it can have ready, skipping the rows too
    /// close to make it; rows it planned before and the screen has not reached yet stay (their work may have started).
    ///
    /// ```swift
    /// let preload = tracker.preloadRows(around: 40..<60, rowCount: 10_000)
    /// let wanted = preload.contains(66) ? tracker.preloadPriority : nil
    /// ```
    public mutating func preloadRows(around visible: Range<Int>, rowCount: Int) -> PreloadRows {
        planned = PreloadRows(extent, around: visible, rowCount: max(0, rowCount), keeping: planned)
        return planned
    }

    /// The priority to preload rows at: `WorkPriority.prefetch`, or `WorkPriority.normal` while the list moves faster
    /// than rows on screen could be ready (the plan's rows are the only ones that can be shown).
    ///
    /// ```swift
    /// charts.prefetch([symbol], priority: tracker.preloadPriority)
    /// ```
    public var preloadPriority: WorkPriority { outruns ? .normal : .prefetch }

    /// Whether `row` (on screen, or coming next) should be shown with a quick rendering first (a binding's quick
    /// tier): the plan says it leaves before its work could be ready, the list brings rows on screen faster than the
    /// threads render them, or, while the list moves, the rows shown lately waited longer for their content
    /// (``CostEstimate/wait``: the work's queue and the threads' share of a busy machine, which a render's own time
    /// does not show) than this row has until it appears, plus a frame.
    ///
    /// ```swift
    /// cell.content.show(symbol, priority: tracker.loadPriority(forRow: 42), quick: tracker.wantsQuick(forRow: 42))
    /// ```
    public func wantsQuick(forRow row: Int) -> Bool {
        guard let cost, cost.seconds > 0, rowHeight > 0 else { return false }
        let rowsPerSecond = abs(speed) / rowHeight * Double(max(1, cost.itemsPerRow))
        let rendered = Double(max(cost.threads, cost.allThreads)) / cost.seconds
        if rowsPerSecond > rendered || loadPriority(forRow: row) == .utility { return true }
        guard let wait = costs?.estimate.wait, let appears = secondsUntilShown(row: row) else { return false }
        return wait > appears + Self.frame
    }

    /// The priority to load visible `row` at: `WorkPriority.visible`, or `WorkPriority.utility` when the plan says
    /// the row leaves the screen before its work could be ready (it runs only when nothing that can still make it
    /// waits).
    ///
    /// ```swift
    /// cell.content.show(symbol, priority: tracker.loadPriority(forRow: 42))
    /// ```
    public func loadPriority(forRow row: Int) -> WorkPriority {
        guard let lastOffset, let seconds = cost?.seconds else { return .visible }
        return canBeReady(row: row, offset: lastOffset, rowHeight: rowHeight, seconds: seconds)
            ? .visible : .utility
    }
}

// MARK: The plan

// The adaptive preload's arithmetic: a pure value fed with times, so tests drive it with a virtual clock.
extension PreloadTracker {
    /// The list moved to `offset` at `time` (ns): sets the rows to preload (planned against `cost` when it is
    /// known). An update that does not move keeps the current extent.
    private mutating func moved(to offset: Double, at time: UInt64, viewportHeight: Double) {
        lastViewportHeight = viewportHeight
        if prediction != nil, followPrediction(offset: offset, at: time, viewportHeight: viewportHeight) { return }
        guard let last = samples.last else {
            samples = [(time, offset)]
            return
        }
        let delta = offset - last.offset
        guard delta != 0, rowHeight > 0, viewportHeight > 0 else { return }
        let now = max(time, last.time)
        let direction = delta > 0 ? 1 : -1
        if abs(delta) > preload.jumpScreens * viewportHeight {
            return startRun(at: now, offset: offset, sign: 0)
        }
        if direction != sign || now - last.time > nanoseconds(preload.window) {
            // The list started moving, turned, or moved again after a pause: a new run.
            return startRun(at: now, offset: offset, sign: direction)
        }
        samples.append((now, offset))
        let horizon = now - min(now, nanoseconds(preload.window))
        while samples.count > 2, samples[1].time <= horizon { samples.removeFirst() }
        let first = samples[0]
        guard now - runStart >= nanoseconds(preload.settle), now > first.time else {
            speed = 0
            return setExtent()
        }
        speed = (offset - first.offset) / (Double(now - first.time) / 1e9)
        if let cost, cost.seconds > 0, cost.threads > 0 {
            path = ScrollPath(samples: samples, now: now, rowHeight: rowHeight)
            return plan(offset: offset, rowHeight: rowHeight, viewportHeight: viewportHeight, cost: cost)
        }
        guard abs(speed) / viewportHeight <= preload.maxSpeed else { return setExtent() }
        // A hair under the exact product, so 40 rows/s for a quarter second is 10 rows, not 11.
        let maxRows = (preload.maxAhead * viewportHeight / rowHeight - 1e-9).rounded(.up)
        let rows = min(maxRows, (abs(speed) * preload.lead / rowHeight - 1e-9).rounded(.up))
        setExtent(ahead: Int(max(0, rows)))
    }

    /// Plans from the toolkit's prediction at `time`; false once the fling has come to rest (the prediction is then
    /// dropped and the offsets' estimate takes over).
    @discardableResult
    private mutating func followPrediction(offset: Double, at time: UInt64, viewportHeight: Double) -> Bool {
        guard let (predicted, start) = prediction, rowHeight > 0 else { return false }
        let velocity = predicted.velocity(after: Double(time - min(time, start)) / 1e9)
        guard abs(velocity) / rowHeight >= 1 else {   // under a row a second: at rest
            prediction = nil
            startRun(at: time, offset: offset, sign: 0)
            return false
        }
        sign = velocity > 0 ? 1 : -1
        speed = velocity
        samples = [(time, offset)]
        runStart = time
        path = ScrollPath(speed: abs(velocity) / rowHeight, decay: predicted.timeConstant)
        if let cost, cost.seconds > 0, cost.threads > 0 {
            plan(offset: offset, rowHeight: rowHeight, viewportHeight: viewportHeight, cost: cost)
        } else {
            // Without a cost: the whole remaining path, up to the extent's cap.
            let maxRows = (preload.maxAhead * viewportHeight / rowHeight - 1e-9).rounded(.up)
            let remaining = abs(velocity) * predicted.timeConstant / rowHeight
            setExtent(ahead: Int(max(0, min(maxRows, remaining.rounded(.up)))))
        }
        return true
    }

    /// Sets the rows to preload on each side of the screen (the direction stays).
    private mutating func setExtent(ahead: Int = 0, behind: Int = 0, skip: Int = 0, outruns: Bool = false) {
        extent = PreloadExtent(ahead: ahead, behind: behind, direction: extent.direction, skip: skip)
        self.outruns = outruns
    }

    /// The cost-aware extent: the path predicted from the speed and its decay, each row ahead timed (when it appears,
    /// when it has left), and rows taken in that order while the threads can have them ready before they leave.
    private mutating func plan(offset: Double, rowHeight: Double, viewportHeight: Double, cost: PreloadCost) {
        guard let path, path.speed > 0, !path.accelerating else { return setExtent() }
        let screen = viewportHeight / rowHeight
        // Rows measured from the top of the viewport, in the direction of travel.
        let top = sign >= 0 ? offset / rowHeight : -(offset + viewportHeight) / rowHeight
        let firstAhead = (top + screen - 1e-9).rounded(.up)   // the first row past the screen
        // A fling that slows down: as far as it will go, up to `reach`. A steady scroll: only what the threads need
        // to have the next rows ready (two rounds of work and a frame), since rows further ahead are wasted if the
        // user stops or turns: a fixed `lead` on top (three frames by default) wasted a row or two at every stop.
        let reach = preload.reach.isFinite ? max(0, preload.reach) : 10
        let horizon = path.decay.isFinite ? reach : min(reach, 2 * cost.seconds + Self.frame)
        // When each row ahead would leave the screen, for the rows that appear within the horizon.
        var leaves: [Double] = []
        while leaves.count < 10_000 {
            let row = firstAhead + Double(leaves.count)
            guard path.seconds(toTravel: row - (top + screen)) <= horizon else { break }
            leaves.append(Self.shownUntil(path.seconds(toTravel: row + 1 - top)))
        }
        // The k-th row started is ready after k / threads rounds of work, and lands a frame later at worst. When the
        // first row past the screen cannot make it, neither can the rows on it: the plan takes every thread.
        let allThreads = max(cost.threads, cost.allThreads)
        let outruns = leaves.first.map { cost.ready(rows: 1, threads: allThreads) + Self.deliveryMargin > $0 } ?? false
        let threads = outruns ? allThreads : cost.threads
        func ready(_ k: Int) -> Double { cost.ready(rows: k + 1, threads: threads) + Self.deliveryMargin }
        func feasible(from first: Int) -> Int {
            var k = 0
            while first + k < leaves.count, ready(k) <= leaves[first + k] { k += 1 }
            return k
        }
        // The run of rows, in deadline order, that the threads can have ready before each leaves: starting at the
        // screen when they keep up; further out (skipping rows too close to make it) when the list moves faster
        // than they render.
        var best = (skip: 0, rows: feasible(from: 0))
        if best.rows < leaves.count {
            let step = max(1, leaves.count / 64)
            for first in stride(from: step, to: leaves.count, by: step) {
                let rows = feasible(from: first)
                if rows > best.rows { best = (first, rows) }
            }
        }
        if best.skip > 0, let quickCosts {
            // A quick tier: the skipped rows (too close for their full content) get quick renderings instead, nearest
            // first, when the threads can have the first of them ready before it leaves.
            var quick = cost
            quick.seconds = quickCosts.seconds ?? 0
            if quick.ready(rows: 1, threads: allThreads) + Self.deliveryMargin <= leaves[0] {
                // Those and every row that appears within `quickLead`; the rows beyond come nearer with each update
                // and are planned then (prefetched now, a fast fling's hundreds of quick renderings would push the
                // nearest out of the cache before they are shown). Rows planned before and still ahead stay, as a
                // skipping plan keeps them: at the edge between the two plans, dropping them would cancel work for
                // the rows coming next.
                let reach = path.rows(within: Self.quickLead) - (firstAhead - (top + screen))
                let soon = reach < 0 ? 0 : Int(min(reach, 10_000).rounded(.down)) + 1
                let ahead = max(best.skip, soon, plannedAhead(firstAhead: firstAhead))
                return setExtent(ahead: ahead, outruns: outruns)
            }
        }
        setExtent(ahead: best.rows, skip: best.rows == 0 ? 0 : best.skip, outruns: outruns)
    }

    /// How many rows from the first past the screen (`firstAhead`, measured like the plan's `top`) the last answer
    /// planned in the direction of travel.
    private func plannedAhead(firstAhead: Double) -> Int {
        if sign >= 0 { return max(0, planned.below.upperBound - Int(firstAhead)) }
        return max(0, -Int(firstAhead) - planned.above.lowerBound)
    }

    /// How far ahead (seconds of the path) the rows coming next get quick renderings while the list outpaces their
    /// full content: six frames, a fast fling's 150-odd rows.
    static let quickLead = 0.1

    /// A result needs about a millisecond to land on the main queue after its work ends.
    static let deliveryMargin = 0.001
    /// Updates come once a frame: a row that leaves the screen at time t is still shown until the next frame.
    static let frame = 1.0 / 60

    /// The frame at which a row that leaves the screen `seconds` from now stops being shown.
    static func shownUntil(_ seconds: Double) -> Double {
        seconds.isFinite ? max(1, (seconds / frame - 1e-9).rounded(.up)) * frame : seconds
    }

    /// Whether work for visible `row`, started now and taking `seconds`, can be ready before the row leaves the
    /// screen on the path predicted at the last update (true when there is no prediction: at rest, settling, or
    /// without a cost).
    private func canBeReady(row: Int, offset: Double, rowHeight: Double, seconds: Double) -> Bool {
        guard let path, path.speed > 0, sign != 0, rowHeight > 0 else { return true }
        let top = sign > 0 ? offset / rowHeight : -offset / rowHeight
        // The row's trailing edge in the direction of travel, measured like `top`.
        let edge = sign > 0 ? Double(row + 1) : -Double(row)
        return seconds + Self.deliveryMargin <= Self.shownUntil(path.seconds(toTravel: edge - top))
    }

    /// Seconds until `row`'s leading edge comes on screen on the path predicted at the last update (0 for a row on
    /// screen); nil while the list has no path (at rest, settling, without a cost) or never gets there.
    private func secondsUntilShown(row: Int) -> Double? {
        guard let path, path.speed > 0, sign != 0, rowHeight > 0, let lastOffset, let lastViewportHeight else {
            return nil
        }
        let travel = sign > 0
            ? Double(row) - (lastOffset + lastViewportHeight) / rowHeight
            : lastOffset / rowHeight - Double(row + 1)
        let seconds = path.seconds(toTravel: max(0, travel))
        return seconds.isFinite ? seconds : nil
    }

    /// Starts a new run at `offset` (a jump starts none: sign 0): nothing speculative for `settle` seconds.
    private mutating func startRun(at time: UInt64, offset: Double, sign: Int) {
        samples = [(time, offset)]
        self.sign = sign
        runStart = time
        speed = 0
        path = nil
        setExtent()
    }

    private func nanoseconds(_ seconds: Double) -> UInt64 {
        seconds.isFinite && seconds > 0 ? UInt64(seconds * 1e9) : 0
    }
}
