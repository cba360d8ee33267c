import Dispatch

/// Measures how quickly a queue — the main queue by default — can start urgent work, continuously and cheaply: a
/// timer pings the queue every `interval` and times how long each ping waits. It keeps p50/p90/p99/max over a sliding
/// window of pings and reports hitches, stalls longer than `threshold` (one 60 Hz frame, 16 ms, by default), with the
/// label of the work item that was running when it can see it. Apps show ``ResponsivenessStats/hudText`` in a HUD;
/// benchmarks report ``snapshot()``.
///
/// ```swift
/// let monitor = ResponsivenessMonitor()           // WorkQueue.main, ping every 16 ms, hitch above 16 ms
/// monitor.onHitch { hitch in print(hitch) }       // "hitch 52.3 ms on main in 'decode thumbnails'"
/// monitor.start()
/// let refresh = LaneTimer.everyOnMain(.milliseconds(500)) { hud.text = monitor.snapshot().hudText }
/// ```
///
/// Only one ping is outstanding at a time, so a stall is reported once however long it lasts. A stall is timed from
/// the moment the queue stopped being able to start work: the start of the item that was running when the ping was
/// sent (seen through ``WorkEvents``), or the send time when none was. A queue that runs on a dispatch queue, as
/// ``WorkQueue/main`` does, is pinged with a block on that dispatch queue, so a ping waits as long as an input event
/// would; other queues get `.visible` items labelled ``pingLabel``. At the default interval, one 60 Hz frame, the
/// monitor costs about 0.6 % of a core (measured on Linux, release build).
public final class ResponsivenessMonitor: Sendable {
    /// The label of ping items (filter it out of traces if you like).
    public static let pingLabel = "lanes.responsiveness-ping"

    private enum Target: Sendable {
        case workQueue(WorkQueue)
        case dispatchQueue(DispatchQueue)
    }

    private struct Control: Sendable {
        var machine: MonitorState
        var timer: ScheduledToken?
        var events: WorkEvents.Token?
        /// Bumped by every start and stop, so a start that raced a stop (and another start) keeps nothing.
        var generation: UInt64 = 0
        var handlers: [(queue: WorkQueue?, handler: @Sendable (Hitch) -> Void)] = []
    }

    private let target: Target
    /// The identity of the queue whose items name hitches (``WorkEvent`` carries it; names need not be unique).
    private let labelQueue: UInt64?
    private let interval: UInt64
    private let clock: any LaneClock
    private let state: LockedValue<Control>

    /// Monitors a ``WorkQueue`` (``WorkQueue/main`` by default).
    /// - Parameters:
    ///   - target: the queue to ping.
    ///   - interval: time between pings (one frame by default). Each ping costs a few thread wake-ups, about
    ///     0.1 ms of CPU, so 16 ms keeps the monitor near 0.6 % of a core; stalls longer than twice the interval
    ///     are always caught.
    ///   - threshold: stalls longer than this are hitches.
    ///   - window: how many recent pings the percentiles cover (1000 × 16 ms: the last 16 seconds or so).
    ///   - tracksLabels: watch ``WorkEvents`` to name the item behind a hitch (turns the event stream on).
    ///   - clock: the time source; a `VirtualClock` in tests.
    public convenience init(
        target: WorkQueue = .main, interval: Duration = .milliseconds(16), threshold: Duration = .milliseconds(16),
        window: Int = 1000, tracksLabels: Bool = true, clock: any LaneClock = SystemLaneClock()
    ) {
        // A queue that runs on a dispatch queue (WorkQueue.main) is pinged there directly: cheaper, and the ping
        // then waits behind everything that dispatch queue runs, as the app's input events do.
        let pinged: Target
        if let dispatch = target.executor as? DispatchExecutor, let queue = dispatch.queue {
            pinged = .dispatchQueue(queue)
        } else if target.executor is MainTurnExecutor {
            pinged = .dispatchQueue(.main)
        } else {
            pinged = .workQueue(target)
        }
        self.init(
            target: pinged, name: target.name, labelQueue: tracksLabels ? target.id : nil,
            interval: interval, threshold: threshold, window: window, clock: clock)
    }

    /// Monitors a dispatch queue directly (pings are `async` blocks). Pass `labelsFrom` to name hitches after the
    /// items of a ``WorkQueue`` that runs on it (``WorkQueue/main`` for `DispatchQueue.main`).
    ///
    /// ```swift
    /// let monitor = ResponsivenessMonitor(dispatchQueue: .main, name: "main", labelsFrom: .main)
    /// ```
    public convenience init(
        dispatchQueue: DispatchQueue, name: String, labelsFrom: WorkQueue? = nil,
        interval: Duration = .milliseconds(16), threshold: Duration = .milliseconds(16), window: Int = 1000,
        clock: any LaneClock = SystemLaneClock()
    ) {
        self.init(
            target: .dispatchQueue(dispatchQueue), name: name, labelQueue: labelsFrom?.id, interval: interval,
            threshold: threshold, window: window, clock: clock)
    }

    private init(
        target: Target, name: String, labelQueue: UInt64?, interval: Duration, threshold: Duration, window: Int,
        clock: any LaneClock
    ) {
        self.target = target
        self.labelQueue = labelQueue
        self.interval = max(1, interval.laneNanoseconds)
        self.clock = clock
        state = LockedValue(Control(
            machine: MonitorState(threshold: threshold.laneNanoseconds, windowSize: window, queueName: name)))
    }

    deinit { stop() }

    /// Whether the monitor is pinging.
    public var isRunning: Bool { state.withLock { $0.machine.running } }

    /// Whether a ping is waiting for the monitored queue to run it: the queue is busy (or stalled) right now.
    public var isAwaitingPing: Bool { state.withLock { $0.machine.outstanding != nil } }

    /// Starts pinging (and watching events, if it tracks labels). Does nothing if it runs already.
    public func start() {
        let now = clock.now
        let generation = state.withLock { control -> UInt64? in
            guard !control.machine.running else { return nil }
            control.machine.setRunning(true, now: now)
            control.generation += 1
            return control.generation
        }
        guard let generation else { return }
        let events = labelQueue.map { queueID in
            WorkEvents.observe { [weak self] event in
                guard event.queueID == queueID, event.label != Self.pingLabel else { return }
                self?.observe(event)
            }
        }
        let timer = clock.scheduleRepeating(
            from: clock.now.laneAdding(interval), every: interval, leeway: interval / 10
        ) { [weak self] in self?.tick() }
        let kept = state.withLock { control -> Bool in
            guard control.generation == generation else { return false }  // stopped (and maybe restarted) meanwhile
            control.timer = timer
            control.events = events
            return true
        }
        if !kept {
            timer.cancel()
            events?.cancel()
        }
    }

    /// Stops pinging. The window and the hitch count are kept for ``snapshot()``; ``start()`` resumes.
    public func stop() {
        let now = clock.now
        let (timer, events) = state.withLock { control -> (ScheduledToken?, WorkEvents.Token?) in
            control.machine.setRunning(false, now: now)
            control.machine.outstanding = nil
            control.generation += 1
            control.machine.items = [:]
            defer { control.timer = nil; control.events = nil }
            return (control.timer, control.events)
        }
        timer?.cancel()
        events?.cancel()
    }

    /// Calls `handler` with each hitch, on `queue` (nil: on the monitored queue, as soon as the stall ends).
    ///
    /// ```swift
    /// monitor.onHitch { hitch in log(hitch.description) }           // at once, on the monitored queue
    /// monitor.onMainHitch { hitch in hud.flash(hitch.description) } // UI state: the main-actor form
    /// ```
    public func onHitch(on queue: WorkQueue? = nil, _ handler: @escaping @Sendable (Hitch) -> Void) {
        state.withLock { $0.handlers.append((queue, handler)) }
    }

    /// The latency percentiles over the window, and the hitches, hitch time and hangs since the monitor started.
    public func snapshot() -> ResponsivenessStats {
        let now = clock.now
        return state.withLock { control in
            let machine = control.machine
            var stats = ResponsivenessStats(
                queue: machine.queueName, nanoseconds: machine.samples, hitches: machine.hitchCount,
                lastHitch: machine.lastHitch)
            stats.hitchTime = .nanoseconds(Int64(clamping: machine.hitchNanoseconds))
            stats.activeTime = .nanoseconds(Int64(clamping: machine.activeTime(now: now)))
            stats.hangs = machine.hangCount
            return stats
        }
    }

    // MARK: Pinging

    private func tick() {
        let now = clock.now
        guard let number = state.withLock({ $0.machine.tick(now: now) }) else { return }
        switch target {
        case .workQueue(let queue):
            let ping = WorkItem<Void>(label: Self.pingLabel, priority: .visible) { [self] _ in pong(number) }
            // A ping cancelled by `cancelAll()` never runs: forget it so the next tick can send another.
            ping.node.onFinish { [weak self] _ in self?.forget(number) }
            try? queue.enqueue(ping)  // a fresh item cannot be enqueued already
        case .dispatchQueue(let queue):
            queue.async { [self] in pong(number) }
        }
    }

    private func pong(_ number: UInt64) {
        let now = clock.now
        let (hitch, handlers) = state.withLock { control -> (Hitch?, [(queue: WorkQueue?, handler: @Sendable (Hitch) -> Void)]) in
            guard let hitch = control.machine.pong(number, now: now) else { return (nil, []) }
            return (hitch, control.handlers)
        }
        guard let hitch else { return }
        for (queue, handler) in handlers {
            Delivery.run(on: queue, label: "hitch") { handler(hitch) }
        }
    }

    private func forget(_ number: UInt64) {
        state.withLock { control in
            if control.machine.outstanding?.number == number { control.machine.outstanding = nil }
        }
    }

    private func observe(_ event: WorkEvent) {
        switch event.kind {
        case .started:
            let now = clock.now
            state.withLock { $0.machine.itemStarted(id: event.itemID, label: event.label, now: now) }
        case .finished:
            let now = clock.now
            state.withLock { $0.machine.itemFinished(id: event.itemID, now: now) }
        case .added, .cancelled:
            break
        }
    }
}
