import Foundation

/// The preload planned once at a lift-off over the whole path the toolkit predicts: which rows each frame of the
/// fling will show, until when, and which of them the threads can have ready in time.
///
/// Frames come every ``PreloadTracker/frame`` from the lift-off, so the rows a frame shows follow from the predicted
/// travel; a fast fling skips rows between frames, which no frame shows and nobody needs. Each row's deadline is the
/// first frame after its last one on screen (a row still on screen when the fling comes to rest has none). Taken in
/// deadline order, a row is planned when the threads can still have it ready before its deadline after every row
/// planned before it (unit jobs released together: this earliest-deadline-first choice plans the most rows that make
/// it), and skipped otherwise: a row the plan skips loads at utility when it shows, behind the rows that can make it.
/// The plan is kept until a touch or rest, so the rows it chose enter the preload once and in deadline order.
struct LiftOffPlan: Equatable {
    /// The rows planned, in the order of travel (their deadlines' order): those in ``quick`` get their quick
    /// rendering ahead, the others their full content.
    var rows: [Int] = []
    /// Planned rows that get a quick rendering ahead: their full content cannot be ready in time, a quick one can.
    var quick: Set<Int> = []
    /// Rows some frame shows that the threads cannot have ready in time.
    var skipped: Set<Int> = []
    /// Whether the plan needs more threads than prefetch may use (it then takes them all, at normal priority).
    var outruns = false

    /// Plans `prediction` from `top` (the first row on screen, a fraction when between rows) with `screen` rows
    /// visible, each row's full content costing `cost` and its quick rendering `quickSeconds` (nil: no quick tier).
    init(
        _ prediction: ScrollPrediction, rowHeight: Double, top: Double, screen: Double, cost: PreloadCost,
        quickSeconds: Double? = nil
    ) {
        guard rowHeight > 0, screen > 0, cost.seconds > 0 else { return }
        let frame = PreloadTracker.frame
        // Rows a second under one: at rest (the same threshold as the tracker's).
        let restsAfter = prediction.timeConstant * log(max(1, abs(prediction.velocity) / rowHeight))
        let frames = min(600, Int((restsAfter / frame).rounded(.up)) + 1)
        guard frames > 0 else { return }
        var appears: [Int: Int] = [:], lastShown: [Int: Int] = [:]
        let onScreen = Self.rows(top: top, screen: screen)
        for index in 1...frames {
            let travel = prediction.travel(after: Double(index) * frame) / rowHeight
            for row in Self.rows(top: top + travel, screen: screen) where !onScreen.contains(row) {
                if appears[row] == nil { appears[row] = index }
                lastShown[row] = index
            }
        }
        // (row, deadline in seconds from now; infinity while still on screen at rest), in deadline order, then by
        // when the row appears.
        let forward = prediction.velocity >= 0
        let jobs = appears.keys.map { row -> (row: Int, deadline: Double, appears: Int) in
            let last = lastShown[row]!
            return (row, last >= frames ? .infinity : Double(last + 1) * frame, appears[row]!)
        }.sorted { ($0.deadline, $0.appears, forward ? $0.row : -$0.row) < ($1.deadline, $1.appears, forward ? $1.row : -$1.row) }
        let all = max(cost.threads, cost.allThreads)
        let items = max(1, cost.itemsPerRow)
        var plan = Self.choose(jobs, seconds: cost.seconds, quick: nil, items: items, threads: cost.threads)
        if !plan.skipped.isEmpty, all > cost.threads {
            plan = Self.choose(jobs, seconds: cost.seconds, quick: nil, items: items, threads: all)
            outruns = true
        }
        if !plan.skipped.isEmpty, let quickSeconds, quickSeconds > 0, quickSeconds < cost.seconds {
            plan = Self.choose(jobs, seconds: cost.seconds, quick: quickSeconds, items: items, threads: all)
        }
        rows = plan.rows.sorted { forward ? $0 < $1 : $0 > $1 }
        quick = plan.quick
        skipped = plan.skipped
    }

    /// Chooses, in deadline order, the rows `threads` threads can have ready in time, each of a row's `items` items
    /// taking `seconds` on the thread that frees first. With a quick tier (`quick` seconds a row), every row that can first gets its quick
    /// rendering (the rows about to appear before later ones); then, in deadline order, a row's full content replaces
    /// its quick one where every row after it still makes its deadline.
    private static func choose(
        _ jobs: [(row: Int, deadline: Double, appears: Int)], seconds: Double, quick: Double?, items: Int, threads: Int
    ) -> (rows: [Int], quick: Set<Int>, skipped: Set<Int>) {
        let margin = PreloadTracker.deliveryMargin
        let size = quick ?? seconds
        var loads = [Double](repeating: 0, count: max(1, threads))
        var taken: [(row: Int, deadline: Double, finish: Double)] = [], skipped = Set<Int>()
        for job in jobs {
            var after = loads, finish = 0.0
            for _ in 0..<items {
                let thread = after.indices.min { after[$0] < after[$1] }!
                after[thread] += size
                finish = max(finish, after[thread])
            }
            if finish + margin <= job.deadline {
                loads = after
                taken.append((job.row, job.deadline, finish))
            } else {
                skipped.insert(job.row)
            }
        }
        guard let quick else { return (taken.map(\.row), [], skipped) }
        // Upgrades, judged on the threads' shared time: a row's own rendering ends `extra` later, every later one
        // `extra / threads` later.
        let extra = (seconds - quick) * Double(items), share = extra / Double(max(1, threads))
        var laterSlack = [Double](repeating: .infinity, count: taken.count + 1)
        for index in taken.indices.reversed() {
            laterSlack[index] = min(laterSlack[index + 1], taken[index].deadline - taken[index].finish - margin)
        }
        var quickRows = Set<Int>(), shift = 0.0
        for (index, job) in taken.enumerated() {
            let own = job.deadline - job.finish - margin - shift
            if own >= extra, laterSlack[index + 1] - shift >= share {
                shift += share
            } else {
                quickRows.insert(job.row)
            }
        }
        return (taken.map(\.row), quickRows, skipped)
    }

    /// The rows a frame whose top is at `top` shows.
    private static func rows(top: Double, screen: Double) -> Range<Int> {
        let first = Int(top.rounded(.down)), last = Int((top + screen - 1e-9).rounded(.up))
        return first..<max(first, last)
    }

    /// The planned rows not reached yet by a screen showing `visible`, as preload rows within `0..<rowCount`: the
    /// span from the nearest to the farthest, the rows in it the plan does not take left out.
    func preloadRows(beyond visible: Range<Int>, rowCount: Int, forward: Bool) -> PreloadRows {
        let ahead = rows.filter { row in
            row >= 0 && row < rowCount && (forward ? row >= visible.upperBound : row < visible.lowerBound)
        }
        guard let low = ahead.min(), let high = ahead.max() else { return .empty }
        let span = low..<(high + 1)
        let taken = Set(ahead)
        let holes = Set(span.filter { !taken.contains($0) })
        return forward
            ? PreloadRows(above: 0..<0, below: span, holes: holes)
            : PreloadRows(above: span, below: 0..<0, holes: holes)
    }
}
