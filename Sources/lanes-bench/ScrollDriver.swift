import Dispatch
import Foundation
import Lanes
import LanesLists

/// How the scroll benchmark's cells get their content.
enum ScrollMode: String, CaseIterable, Sendable {
    /// `LanesLists`: a `ListModel` with the adaptive preload wired to a `ContentLoader` (cancellation, reuse guard,
    /// cache, prefetch that follows the user).
    case lanes
    /// The same with the fixed preload this benchmark used before the adaptive one (a quarter screen ahead, a tenth
    /// behind).
    case lanesFixed = "lanes-fixed"
    /// The same with `ListModel`'s default preload (the adaptive one), on the width-1 queue: what a new user gets.
    case lanesDefault = "lanes-default"
    /// The same with `ListModel`'s earlier default, a fixed preload of one screen ahead and a quarter behind.
    case lanesScreen = "lanes-screen"
    /// Render on the main queue as each row will display (the talk's "before").
    case naiveMain = "naive-main"
    /// Render on a global queue and set the result on the cell with no cancellation and no reuse guard (the naive
    /// solution WWDC 2012's "Building Concurrent User Interfaces on iOS" starts from).
    case naiveBackground = "naive-background"
    /// No content at all: the same scroll and frame tick, to show the main queue's latency floor on this machine.
    case baseline
}

/// A cell of the benchmark's list.
@MainActor
final class ScrollCell {
    /// The row the list shows in this cell now (nil while in the reuse pool).
    var row: Int?
    /// What the cell displays.
    var content: RowImage?
    var binding: ContentBinding<Int, RowImage>?
}

/// Plays the scroll script on the main queue with a 60 Hz frame tick, in one mode, and measures it. Lives on the
/// main actor.
@MainActor
final class ScrollDriver {
    static let rowCount = 10_000
    static let visibleRows = 20.0

    let mode: ScrollMode
    let scriptKind: ScrollScript
    let renderer: RowRenderer
    private let script: [ScrollMotion]
    private(set) var model: ListModel<ScrollCell>!
    private(set) var loader: ContentLoader<Int, RowImage>?
    /// The quick tier (`LANES_BENCH_QUICK_TIER=1`, the `lanes` mode): an eighth of a render's smoothing.
    private(set) var quickLoader: ContentLoader<Int, RowImage>?
    /// Visible rows showing their quick rendering (their full one still on its way).
    private var quickShownRows = Set<Int>()
    /// Quick renderings shown.
    private(set) var quickShown = 0
    /// Rows that came on screen and left without any content, not even a quick rendering.
    private(set) var neverShown = 0
    let renderQueue: WorkQueue?
    let background = DispatchGroup()
    private(set) var probe = FrameProbe()
    private var timer: (any DispatchSourceTimer)?
    private var onFinish: (() -> Void)?

    private var segment = 0
    private var segmentStart: UInt64 = 0
    private var segmentOffset = 0.0
    private var filledAt: UInt64?
    private(set) var fills: [(name: String, ms: Double?)] = []
    /// Serials of renders shown in a cell showing their row.
    private(set) var shown = Set<Int>()
    /// Serials of renders whose completion was delivered to a visible cell showing their row.
    private(set) var visibleAtDelivery = Set<Int>()
    private(set) var wrongCell = 0
    /// True while a row is being bound at will-display (a binding's synchronous cache hit is not a completion).
    private var isBinding = false
    /// Frames ticked (a jitter moves one row each frame, alternating).
    private var frame = 0
    /// Visible rows not shown yet, with the time each came on screen (rows of the first layout are not timed).
    private var waitingSince: [Int: UInt64] = [:]
    /// Visible rows not shown yet when the list came to rest, with the time it did and whether a jump put it there.
    private var waitingSinceStop: [Int: (time: UInt64, afterJump: Bool)] = [:]
    /// Milliseconds from will-display to the row's own content in its cell, for every row shown while visible (but
    /// those of the first layout, which all wait for a cold start).
    private(set) var visibleToShown: [Double] = []
    /// Milliseconds from a stop after motion (a scroll, a fling, a jitter) to the row's content, for rows visible and
    /// unfilled when the motion stopped.
    private(set) var stopToShown: [Double] = []
    /// Milliseconds from a jump to the row's content, for rows of the screen jumped to that were not cached: no preload
    /// can guess them, so their floor is the screen's renders shared by the render threads.
    private(set) var jumpToShown: [Double] = []
    /// Rows that came on screen and left without showing their content.
    private(set) var leftUnshown = 0
    /// `leftUnshown` by script segment (the motion playing when the row left).
    private(set) var unshownBySegment: [Int: Int] = [:]
    /// Visible rows without their content at the moments motion stopped (the first layout excluded).
    private(set) var unfilledAtStop = 0
    /// Visible rows without their content right after a jump to a screen followed by a stop, most at one jump.
    private(set) var unfilledAfterJump = 0
    /// How many stops (settles after motion or a jump) the script had.
    private(set) var stops = 0
    /// The rows on screen at every frame, with the frame's time (for the oracle); rows of the first layout (segment
    /// 0) are not counted, as in `leftUnshown` and `visibleToShown`.
    private(set) var frames: [(time: Double, rows: Range<Int>, counted: Bool)] = []
    /// The fingers' lift-offs: when each fling began (seconds on `now()`'s clock), where the list was, the travel
    /// predicted then, and when the motion ended (the next touch, or rest).
    private(set) var liftOffs: [(time: Double, from: Double, travel: Double, end: Double)] = []
    /// The scroller's prediction at each lift-off (as `liftOffs`, one each): the path the list is told of.
    private(set) var liftOffPredictions: [ScrollPrediction] = []
    /// Every counted frame's visible rows without their own content, and the visible rows.
    private(set) var blankFrames: [(time: Double, blank: Int, visible: Int)] = []
    /// Contents shown in a cell of their row, with the time (`LANES_BENCH_SCROLL_TRACE` only).
    private(set) var shownLog: [(row: Int, time: UInt64, quick: Bool)] = []
    /// Each frame's visible rows and preload rows (first, last, count) and preload priority (the trace only).
    private(set) var preloadLog: [(time: UInt64, visible: Range<Int>, first: Int, last: Int, count: Int, priority: Int)] = []
    /// When the first frame was due, in seconds on `now()`'s clock.
    var origin: Double { Double(probe.origin) / 1e9 }

    var isLanes: Bool { [.lanes, .lanesFixed, .lanesDefault, .lanesScreen].contains(mode) }

    init(mode: ScrollMode, script: ScrollScript, renderer: RowRenderer, quick: Bool) {
        self.mode = mode
        self.scriptKind = script
        self.renderer = renderer
        self.script = (mode == .baseline ? ScrollScript.fling : script).motions(quick: quick || mode == .baseline)
        if [.lanes, .lanesFixed, .lanesDefault, .lanesScreen].contains(mode) {
            let cores = ProcessInfo.processInfo.activeProcessorCount
            let queue: WorkQueue
            if mode == .lanes {
                // Prefetch takes at most cores - 1 threads; one more is kept for rows on screen, which never wait
                // behind a running prefetch.
                queue = WorkQueue("scroll-render", maxConcurrency: max(2, cores))
                queue.setSpeculativeLimit(max(1, cores - 1), below: .normal)
            } else {
                queue = WorkQueue("scroll-render", maxConcurrency: max(1, cores - 1))
            }
            let bytes = RowRenderer.width * RowRenderer.height
            renderQueue = queue
            loader = ContentLoader(name: "row", queue: queue, costLimit: 400 * bytes, cost: { $0.pixels.count }) {
                row, context in
                let start = now()
                let image = renderer.render(row: row, isCancelled: { context.isCancelled })
                ScrollTrace.render(row: row, quick: false, start: start, finished: image != nil)
                guard let image else { throw CancellationError() }
                return image
            }
            if mode == .lanes, Self.quickTier {
                let quick = RowRenderer(passes: max(1, renderer.passes / 8), counters: RenderCounters())
                quickLoader = ContentLoader(name: "row-quick", queue: queue, costLimit: 400 * bytes,
                                            cost: { $0.pixels.count }) { row, context in
                    let start = now()
                    let rendered = quick.render(row: row, isCancelled: { context.isCancelled })
                    ScrollTrace.render(row: row, quick: true, start: start, finished: rendered != nil)
                    guard var image = rendered else { throw CancellationError() }
                    image.quick = true
                    return image
                }
            }
        } else {
            renderQueue = nil
        }
        switch mode {
        case .lanes:
            model = ListModel(
                rowCount: Self.rowCount, rowHeight: 1, viewportHeight: Self.visibleRows,
                preload: .adaptive(AdaptivePreload())
            ) { [unowned self] in makeCell() }
        case .lanesFixed:
            model = ListModel(
                rowCount: Self.rowCount, rowHeight: 1, viewportHeight: Self.visibleRows,
                preload: .fixed(ahead: 0.25, behind: 0.1)
            ) { [unowned self] in makeCell() }
        case .lanesDefault:
            model = ListModel(rowCount: Self.rowCount, rowHeight: 1, viewportHeight: Self.visibleRows) {
                [unowned self] in makeCell()
            }
        case .lanesScreen:
            model = ListModel(
                rowCount: Self.rowCount, rowHeight: 1, viewportHeight: Self.visibleRows,
                preload: .fixed(ahead: 1, behind: 0.25)
            ) { [unowned self] in makeCell() }
        default:
            model = ListModel(
                rowCount: Self.rowCount, rowHeight: 1, viewportHeight: Self.visibleRows, preload: .off
            ) { [unowned self] in makeCell() }
        }
        wire()
    }

    // MARK: Cells and modes

    private func makeCell() -> ScrollCell {
        let cell = ScrollCell()
        if let loader {
            cell.binding = loader.binding(quick: quickLoader, placeholder: { [unowned cell] _ in cell.content = nil }) {
                [unowned self, unowned cell] _, result in
                if case .success(let image) = result { deliver(image, to: cell, completion: !isBinding) }
            }
        }
        return cell
    }

    private func wire() {
        model.observe { [unowned self] event in
            switch event {
            case .willDisplay(let row, let cell):
                cell.row = row
                if segment > 0 { waitingSince[row] = now() }
                isBinding = true
            case .didEndDisplay(let row, let cell):
                cell.row = nil
                if waitingSince.removeValue(forKey: row) != nil {
                    leftUnshown += 1
                    unshownBySegment[segment, default: 0] += 1
                    if !quickShownRows.contains(row) { neverShown += 1 }
                }
                quickShownRows.remove(row)
                waitingSinceStop[row] = nil
            case .enterPreload, .leavePreload:
                break
            }
        }
        switch mode {
        case .lanes, .lanesFixed, .lanesDefault, .lanesScreen:
            model.connect(to: loader!, quick: quickLoader, key: { $0 }, binding: { $0.binding! })
        case .naiveMain:
            model.observe { [unowned self] event in
                guard case .willDisplay(let row, let cell) = event else { return }
                deliver(renderer.render(row: row)!, to: cell, completion: true)
            }
        case .naiveBackground:
            model.observe { [unowned self] event in
                guard case .willDisplay(let row, let cell) = event else { return }
                cell.content = nil
                let renderer = self.renderer, group = background
                group.enter()
                DispatchQueue.global().async { [self] in
                    let image = renderer.render(row: row)!
                    DispatchQueue.main.async {
                        MainActor.assumeIsolated {
                            let start = now()
                            self.deliver(image, to: cell, completion: true)
                            self.probe.delivered(duration: now() - start)
                        }
                        group.leave()
                    }
                }
            }
        case .baseline:
            break
        }
        model.observe { [unowned self] event in
            if case .willDisplay = event { isBinding = false }
        }
    }

    /// A render result reached `cell`. Naive background rendering puts it there whatever row the cell shows now.
    private func deliver(_ image: RowImage, to cell: ScrollCell, completion: Bool) {
        let start = now()
        if image.row != cell.row { wrongCell += 1 }
        if ScrollTrace.isOn, image.row == cell.row { shownLog.append((image.row, start, image.quick)) }
        if image.quick {
            // Shown until the full rendering comes; not a row's content for the latencies and fills.
            cell.content = image
            if image.row == cell.row {
                quickShownRows.insert(image.row)
                quickShown += 1
            }
            return
        }
        quickShownRows.remove(image.row)
        cell.content = image
        if image.row == cell.row {
            shown.insert(image.serial)
            if completion { visibleAtDelivery.insert(image.serial) }
            if let since = waitingSince.removeValue(forKey: image.row) {
                visibleToShown.append(Double(start - min(start, since)) / 1e6)
            }
            if let since = waitingSinceStop.removeValue(forKey: image.row) {
                let ms = Double(start - min(start, since.time)) / 1e6
                if since.afterJump { jumpToShown.append(ms) } else { stopToShown.append(ms) }
            }
        }
        checkFill(at: start)
        if isLanes, completion { probe.delivered(duration: now() - start) }
    }

    // MARK: Frames

    /// Starts the frame tick; `finished` runs on the main queue when the script is over.
    func start(finished: @escaping () -> Void) {
        onFinish = finished
        let timer = DispatchSource.makeTimerSource(flags: .strict, queue: .main)
        let first = now() + 50_000_000
        probe.origin = first
        segmentStart = first
        timer.setEventHandler { [self] in MainActor.assumeIsolated { tick() } }  // a source on the main queue
        timer.schedule(
            deadline: DispatchTime(uptimeNanoseconds: first), repeating: .nanoseconds(Int(FrameProbe.interval)),
            leeway: .nanoseconds(0))
        self.timer = timer
        timer.resume()
    }

    /// `LANES_BENCH_QUICK_TIER=1`: the `lanes` mode's cells have a quick tier.
    private static let quickTier = ProcessInfo.processInfo.environment["LANES_BENCH_QUICK_TIER"] == "1"

    /// `LANES_BENCH_NO_LIFTOFF=1`: the list is not told the fling's path at lift-off (it estimates it from offsets).
    private static let feedsLiftOffs = ProcessInfo.processInfo.environment["LANES_BENCH_NO_LIFTOFF"] != "1"

    /// `LANES_BENCH_FRAME_BUDGET=1`: each tick begins a `MainFrame` frame, as an app's frame clock would.
    private static let beginsFrames = ProcessInfo.processInfo.environment["LANES_BENCH_FRAME_BUDGET"] == "1"

    private func tick() {
        if Self.beginsFrames { MainFrame.beginFrame() }
        let start = now()
        let lateBy = probe.tickFired(at: start)
        frame += 1
        advance(at: start)
        frames.append((Double(start) / 1e9, model.visibleRows, segment > 0))
        if ScrollTrace.isOn {
            let preload = model.preloadRows
            preloadLog.append((start, model.visibleRows, preload.first ?? -1, preload.last ?? -1, preload.count,
                               model.preloadPriority.rawValue))
        }
        if segment > 0, mode != .baseline {
            let visible = model.visibleRows
            var blank = 0
            for row in visible where model.cell(forRow: row)?.content?.row != row { blank += 1 }
            blankFrames.append((Double(start) / 1e9, blank, visible.count))
        }
        checkFill(at: now())
        probe.tickHandled(lateBy: lateBy, duration: now() - start)
        if segment == script.count { finish() }
    }

    /// Moves the list to where the script is at `time`.
    private func advance(at time: UInt64) {
        while segment < script.count {
            let motion = script[segment]
            let t = Double(time - min(time, segmentStart)) / 1e9
            switch motion {
            case .settle(let name, let minimum, let maximum):
                model.layoutIfNeeded()
                checkFill(at: now())
                let filled = filledAt != nil || mode == .baseline
                guard (filled && t >= minimum) || t >= maximum else { return }
                if mode != .baseline { fills.append((name, filledAt.map { Double($0 - min($0, segmentStart)) / 1e6 })) }
            case .jump(let row):
                model.scroll(to: row.map(Double.init) ?? model.maxScrollOffset)
            case .jitter:
                let end = t >= motion.seconds
                model.scroll(to: segmentOffset + (end || frame.isMultiple(of: 2) ? 0 : 1))
                guard end else { return }
            case .steady, .fling, .caught, .glide:
                let end = t >= motion.seconds
                model.scroll(to: segmentOffset + motion.distance(at: t))
                guard end else { return }
            }
            if motion.predictedTravel != nil, !liftOffs.isEmpty {
                liftOffs[liftOffs.count - 1].end = Double(time) / 1e9
                if Self.feedsLiftOffs { model.touchDown() }   // caught, or at rest
            }
            segment += 1
            segmentStart = time
            segmentOffset = model.scrollOffset
            filledAt = nil
            if segment < script.count, let travel = script[segment].predictedTravel {
                liftOffs.append((Double(time) / 1e9, segmentOffset, travel, .infinity))
                liftOffPredictions.append(script[segment].prediction ?? ScrollPrediction(velocity: 0, timeConstant: 0))
                // The scroller's own physics at lift-off, as a toolkit hands them to the list.
                if Self.feedsLiftOffs, let prediction = script[segment].prediction { model.liftOff(prediction) }
            }
            if segment > 1, segment < script.count, script[segment].isSettle {
                if case .jump = script[segment - 1] { cameToRest(at: time, afterJump: true) } else {
                    cameToRest(at: time, afterJump: false)
                }
            }
        }
    }

    /// The list came to rest (after motion, or right after a jump): count the visible rows still waiting for their
    /// content and time them from now.
    private func cameToRest(at time: UInt64, afterJump: Bool) {
        guard mode != .baseline else { return }   // no content to wait for
        stops += 1
        var unfilled = 0
        for row in model.visibleRows where !showsFull(row) {
            unfilled += 1
            waitingSinceStop[row] = (time, afterJump)
        }
        if afterJump { unfilledAfterJump = max(unfilledAfterJump, unfilled) } else { unfilledAtStop += unfilled }
    }

    /// Records when every visible cell first shows its own row during a settle.
    private func checkFill(at time: UInt64) {
        guard filledAt == nil, segment < script.count, case .settle = script[segment] else { return }
        for row in model.visibleRows where !showsFull(row) { return }
        filledAt = max(time, segmentStart)
    }

    /// Whether `row`'s cell shows the row's full rendering.
    private func showsFull(_ row: Int) -> Bool {
        guard let content = model.cell(forRow: row)?.content else { return false }
        return content.row == row && !content.quick
    }

    private func finish() {
        timer?.cancel()
        timer = nil
        loader?.invalidate()
        let done = onFinish
        onFinish = nil
        done?()
    }
}
