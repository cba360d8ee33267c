import Dispatch
import Synchronization

/// The main thread's frame budget for ``WorkQueue/main``: tell it when each frame begins (from the toolkit's frame
/// clock: GTK's `GdkFrameClock`, a display link, a render timer) and main-queue work fits around the frames.
///
/// - **Visible first, speculative in idle time.** A ``WorkQueue/main`` item below ``WorkPriority/normal`` (a prefetched
///   result, a cache fill) that comes after the first quarter of the frame waits for the next frame; items for what is
///   on screen (``WorkPriority/visible``: ContentBinding deliveries) use the frame's remaining budget first.
/// - **Starvation guard.** Once main-queue items have run for half a frame interval since the frame began (or since
///   the last yield ended), or the next frame is due, the next ones go behind the main-queue work already waiting
///   (the frame callback, input), so a flood of results takes at most half of each interval and does not hold a
///   frame that is due (while one is late, items run in slices of a sixteenth of an interval).
///
/// Until ``beginFrame()`` is first called, and whenever frames stop (none for four intervals), main-queue items run
/// as they come, exactly as without it.
///
/// ```swift
/// MainFrame.setInterval(.milliseconds(16))      // a 60 Hz display; 8 ms for 120 Hz
/// // in the frame callback, on the main thread:
/// MainFrame.beginFrame()
/// ```
public enum MainFrame {
    private static let ledger = Mutex(FrameLedger())
    /// Turns waiting for the next frame, and whether a fallback release is scheduled.
    private static let waiting = Mutex<(runners: [WorkRunner], releaseScheduled: Bool)>(([], false))

    /// Sets the frame interval (16.7 ms by default; a zero or negative duration is one nanosecond): the display's
    /// refresh interval, from the toolkit (GTK: `gdk_frame_clock_get_refresh_info`, as the desk app does each frame).
    ///
    /// ```swift
    /// MainFrame.setInterval(.nanoseconds(8_333_333))   // 120 Hz
    /// ```
    public static func setInterval(_ interval: Duration) {
        let nanoseconds = interval.laneNanoseconds
        ledger.withLock { $0.interval = max(1, nanoseconds) }
    }

    /// The frame interval in nanoseconds.
    static var intervalNanoseconds: UInt64 { ledger.withLock { $0.interval } }

    /// A frame begins now: call it from the frame callback, on the main thread. Items that waited for a frame get
    /// their turns after the callback.
    ///
    /// ```swift
    /// // GTK: gtk_widget_add_tick_callback(widget, { _, _, _ in MainFrame.beginFrame(); return 1 }, nil, nil)
    /// MainFrame.beginFrame()
    /// ```
    public static func beginFrame() {
        ledger.withLock { $0.beginFrame(at: DispatchTime.now().uptimeNanoseconds) }
        release()
    }

    /// Runs one main-queue turn of `runner` now, or puts it behind the frame.
    static func turn(_ runner: WorkRunner) {
        let decision = ledger.withLock { $0.turn(priority: runner.priority, at: DispatchTime.now().uptimeNanoseconds) }
        switch decision {
        case .run:
            runner.run(maxItems: 1)
        case .yieldToFrame(let starts):
            if starts {
                DispatchQueue.main.async {
                    ledger.withLock { $0.resumed(at: DispatchTime.now().uptimeNanoseconds) }
                }
            }
            DispatchQueue.main.async { turn(runner) }
        case .waitForNextFrame:
            let schedule = waiting.withLock { waiting -> Bool in
                waiting.runners.append(runner)
                defer { waiting.releaseScheduled = true }
                return !waiting.releaseScheduled
            }
            if schedule {
                // If no frame comes, the turns run an interval later anyway.
                let interval = intervalNanoseconds
                DispatchQueue.main.asyncAfter(deadline: .now() + .nanoseconds(Int(min(interval, 1_000_000_000)))) {
                    beginFrame()
                }
            }
        }
    }

    private static func release() {
        let runners = waiting.withLock { waiting -> [WorkRunner] in
            defer { waiting = ([], false) }
            return waiting.runners
        }
        for runner in runners { DispatchQueue.main.async { turn(runner) } }
    }
}

/// ``WorkQueue/main``'s executor: one item per main-queue turn, each turn asking ``MainFrame`` first.
struct MainTurnExecutor: WorkExecutor {
    func schedule(_ runner: WorkRunner) {
        let qos = runner.priority.dispatchQoS
        DispatchQueue.main.async(qos: DispatchQoS(qosClass: qos, relativePriority: 0)) { MainFrame.turn(runner) }
    }
}
