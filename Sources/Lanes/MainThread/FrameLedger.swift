/// The main thread's frame budget, as a pure value fed with times (nanoseconds), so tests drive it with a virtual
/// clock: ``MainFrame`` keeps one and asks it before each main-queue turn of ``WorkQueue/main``.
///
/// While frames come (``beginFrame(at:)`` less than four intervals ago):
/// - **starvation guard**: once main-queue items have run for `guardShare` of an interval (half by default, leaving
///   the rest to the frame's own layout and painting) since the frame began or the last yield ended, or the next
///   frame is due (an interval after the last began), every turn yields: it goes behind the main-queue work already
///   waiting (the frame's own callback among it), and the items run again after that. When the next frame is late
///   (due, and the yield ended without it), turns yield every sixteenth of an interval, so the frame runs within
///   about a millisecond of coming rather than behind another half interval of items (which put a frame a refresh
///   late: 33 ms apart on the desk's flood);
/// - **idle-time work**: a turn below ``WorkPriority/normal`` (a prefetched result) that comes after `idleShare` of
///   the frame (a quarter by default) waits for the next frame, so results for rows on screen take the frame's
///   remaining budget first.
///
/// With no frames, every turn runs at once, as before.
package struct FrameLedger: Sendable {
    /// What a main-queue turn should do.
    package enum Decision: Equatable, Sendable {
        /// Run the item now.
        case run
        /// Go behind the main-queue work waiting now; `starts` is true for the turn that began the yield (it posts
        /// the marker that ends it).
        case yieldToFrame(starts: Bool)
        /// Wait for the next frame (or, if none comes, one interval).
        case waitForNextFrame
    }

    package var interval: UInt64
    package var idleShare: Double
    package var guardShare: Double
    private var frameStart: UInt64?
    private var windowStart: UInt64 = 0
    private var yielding = false

    package init(interval: UInt64 = 16_666_667, idleShare: Double = 0.25, guardShare: Double = 0.5) {
        self.interval = max(1, interval)
        self.idleShare = idleShare
        self.guardShare = min(1, max(0, guardShare))
    }

    /// A frame began at `now` (the toolkit's frame clock ticked).
    package mutating func beginFrame(at now: UInt64) {
        frameStart = now
        windowStart = now
        yielding = false   // the frame the turns yielded to has begun
    }

    /// Whether frames are coming: the last began less than four intervals before `now`.
    package func framesActive(at now: UInt64) -> Bool {
        guard let frameStart else { return false }
        return now >= frameStart && now - frameStart < 4 * interval
    }

    /// A turn of priority `priority` is due at `now`.
    package mutating func turn(priority: WorkPriority, at now: UInt64) -> Decision {
        guard framesActive(at: now) else { return .run }
        if yielding { return .yieldToFrame(starts: false) }
        if now >= windowEnd {
            yielding = true
            return .yieldToFrame(starts: true)
        }
        if priority < .normal, let frameStart, Double(now - min(now, frameStart)) > idleShare * Double(interval) {
            return .waitForNextFrame
        }
        return .run
    }

    /// When the turns of the current window must yield: `guardShare` of an interval after it began, or when the next
    /// frame is due if that is sooner; a sixteenth of an interval after it began when that frame is already late.
    private var windowEnd: UInt64 {
        let budget = UInt64(guardShare * Double(interval))
        guard let frameStart else { return windowStart + budget }
        let due = frameStart + interval
        if windowStart < due { return min(windowStart + budget, due) }
        return windowStart + min(budget, max(1, interval / 16))
    }

    /// The yield's marker ran at `now`: the work that was waiting ahead of it (the frame) has run.
    package mutating func resumed(at now: UInt64) {
        guard yielding else { return }   // a frame began first and ended the yield
        yielding = false
        windowStart = now
    }
}
