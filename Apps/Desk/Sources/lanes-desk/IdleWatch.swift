import CGtk4

/// Lets the app's own periodic work — the status bar's monitor pings and its refresh timer — run only while something
/// happens, so an idle app sleeps in `poll` instead of waking its main thread ~23 times a second.
///
/// Activity is a frame starting (the frame clock's `before-paint`, except the one frame the status bar's own relabel
/// asks for), the view moving (a page's scroll adjustment changing), an input event (a capture-phase controller on
/// the window sees it before any handler) and main-queue
/// work about to run (the bridge's `willDrain`, except while the monitor's ping waits: that drain is most likely the
/// ping; work that lands beside it keeps the app awake through the frames it draws). After
/// ``quietPeriod`` without any, the watch falls asleep (``onSleep``: the monitor and the timer stop); the next activity
/// wakes it (``onWake``: the monitor, the timer and at once the status bar, which said "idle") before that activity's
/// work runs, so a stall in it is still timed.
@MainActor
final class IdleWatch {
    /// How long nothing must happen before the watch sleeps (µs).
    static let quietPeriod: Int64 = 1_000_000

    private(set) var isAsleep = false
    /// Times it fell asleep and woke up.
    private(set) var sleeps = 0, wakes = 0
    private var lastActivity = Int64(g_get_monotonic_time())
    private var ownFramePending = false
    private var asleepCallbacks: [() -> Void] = []
    var onSleep: () -> Void = {}
    var onWake: () -> Void = {}

    /// Something happened: stay awake, or wake up.
    func noteActivity() {
        lastActivity = Int64(g_get_monotonic_time())
        guard isAsleep else { return }
        isAsleep = false
        wakes += 1
        onWake()
    }

    /// A frame is starting (`before-paint`).
    func frameStarted() {
        if ownFramePending {
            ownFramePending = false
            return
        }
        noteActivity()
    }

    /// The next frame is the status bar's own repaint, not activity.
    func expectOwnFrame() { ownFramePending = true }

    /// Main-queue work is about to run. `answersPing`: the monitor's ping is what is waiting, nothing else to see.
    func mainQueueWillDrain(answersPing: Bool) {
        if !answersPing { noteActivity() }
    }

    /// Called by the status bar's timer: falls asleep once nothing happened for ``quietPeriod``, unless `busy` (a
    /// ping still waits for the main queue). Returns whether it is asleep now.
    func checkQuiet(busy: Bool) -> Bool {
        guard !isAsleep else { return true }
        guard !busy, Int64(g_get_monotonic_time()) - lastActivity >= Self.quietPeriod else { return false }
        isAsleep = true
        sleeps += 1
        onSleep()
        let waiting = asleepCallbacks
        asleepCallbacks = []
        for body in waiting { body() }
        return true
    }

    /// Calls `body` once the watch is asleep (now if it is), directly from the transition: never through the main
    /// queue, which would wake it again.
    func whenAsleep(_ body: @escaping () -> Void) {
        if isAsleep { body() } else { asleepCallbacks.append(body) }
    }

    /// Forgets the `whenAsleep` callbacks not yet called (a deadline passed).
    func cancelWhenAsleep() { asleepCallbacks = [] }
}
