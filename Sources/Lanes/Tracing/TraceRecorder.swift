import Dispatch
import Foundation

/// Records the core's event stream and writes it as a Chrome trace-event JSON file that Perfetto
/// (ui.perfetto.dev) and `chrome://tracing` open: one track per queue (a concurrent queue gets one track per
/// simultaneously running item) and per thread, a slice per item with its label, and instant markers for
/// cancellations and for whatever you add with ``recordInstant(name:category:time:queue:)``.
///
/// ```swift
/// let trace = TraceRecorder()
/// trace.start()
/// runTheApp()
/// trace.stop()
/// try trace.write(to: URL(fileURLWithPath: "app-trace.json"))
/// ```
///
/// Recording is cheap (one uncontended lock per event) and bounded: past `capacity` events, new ones are counted
/// as dropped instead of stored.
public final class TraceRecorder: Sendable {
    struct State: Sendable {
        var token: WorkEvents.Token?
        var events: [WorkEvent] = []
        var markers: [TraceMarker] = []
        var threadNames: [UInt64: String] = [:]
        var dropped = 0
    }

    /// The most events (and markers) kept in memory.
    public let capacity: Int
    /// Where ``finish()`` writes the trace (set by `fromArguments(_:)` of LanesAppSupport, or by ``init(capacity:outputURL:)``).
    public let outputURL: URL?
    private let state = LockedValue(State())

    /// Creates a recorder; it records nothing until ``start()``.
    /// - Parameters:
    ///   - capacity: the most events kept; later ones are counted in ``droppedEvents``.
    ///   - outputURL: where ``finish()`` writes the trace.
    public init(capacity: Int = 1_000_000, outputURL: URL? = nil) {
        self.capacity = max(0, capacity)
        self.outputURL = outputURL
    }

    /// Starts recording every work item event in the process. Calling it while recording does nothing.
    ///
    /// ```swift
    /// trace.start()
    /// ```
    public func start() {
        let recording = state.withLock { $0.token != nil }
        guard !recording else { return }
        let token = WorkEvents.observe { [weak self] event in self?.record(event) }
        let extra = state.withLock { state -> WorkEvents.Token? in
            if state.token != nil { return token }
            state.token = token
            return nil
        }
        extra?.cancel()
    }

    /// Stops recording; what was recorded stays until the recorder is released.
    ///
    /// ```swift
    /// trace.stop()
    /// ```
    public func stop() {
        let token = state.withLock { state -> WorkEvents.Token? in
            defer { state.token = nil }
            return state.token
        }
        token?.cancel()
    }

    /// Whether the recorder is recording.
    public var isRecording: Bool { state.withLock { $0.token != nil } }

    /// How many events and markers are stored.
    public var eventCount: Int { state.withLock { $0.events.count + $0.markers.count } }

    /// How many events arrived after the recorder was full.
    public var droppedEvents: Int { state.withLock { $0.dropped } }

    /// Adds an instant marker (a responsiveness monitor's "hitch", a user action) at `time`, in
    /// `DispatchTime.now().uptimeNanoseconds` units. With a `queue` name it sits on that queue's track, otherwise it
    /// spans the whole timeline. Markers are kept even when the recorder is stopped.
    ///
    /// ```swift
    /// trace.recordInstant(name: "hitch 48 ms", category: "hitch", queue: "main")
    /// ```
    public func recordInstant(
        name: String, category: String = "marker", time: UInt64 = DispatchTime.now().uptimeNanoseconds,
        queue: String? = nil
    ) {
        store(TraceMarker(name: name, category: category, start: time, end: nil, track: queue))
    }

    /// Adds an interval (a hitch's duration, a phase of the app) on a track of its own named `track`, in
    /// `DispatchTime.now().uptimeNanoseconds` units.
    ///
    /// ```swift
    /// trace.recordInterval(name: "hitch", category: "hitch", start: began, end: ended, track: "main-queue hitches")
    /// ```
    public func recordInterval(name: String, category: String = "marker", start: UInt64, end: UInt64, track: String) {
        store(TraceMarker(name: name, category: category, start: min(start, end), end: max(start, end), track: track))
    }

    /// The trace as Chrome trace-event JSON: `{"traceEvents": [...], "displayTimeUnit": "ms"}`, times in
    /// microseconds from the first event.
    ///
    /// ```swift
    /// let data = trace.jsonData()
    /// ```
    public func jsonData() -> Data {
        let (events, markers, names, dropped) = state.withLock { ($0.events, $0.markers, $0.threadNames, $0.dropped) }
        return Data(TraceBuilder(events: events, markers: markers, threadNames: names).json(dropped: dropped).utf8)
    }

    /// Writes ``jsonData()`` to `url`, atomically.
    ///
    /// ```swift
    /// try trace.write(to: URL(fileURLWithPath: "trace.json"))
    /// ```
    public func write(to url: URL) throws {
        try AtomicFile.write(jsonData(), to: url)
    }

    // MARK: Recording

    private func record(_ event: WorkEvent) {
        let newThread = state.withLock { state -> Bool in
            guard state.events.count + state.markers.count < capacity else {
                state.dropped += 1
                return false
            }
            state.events.append(event)
            guard event.kind == .started, state.threadNames[event.thread] == nil else { return false }
            state.threadNames[event.thread] = ""
            return true
        }
        // Observers run on the thread where the event happened, so the first started event on a thread can tell
        // whether it is the main thread or drains the main queue. (Foundation's `Thread.name` is not reliable on
        // Linux, so other threads keep their number.)
        if newThread {
            let name = Thread.isMainThread ? "main thread" : MainQueue.isCurrent ? "main queue" : ""
            if !name.isEmpty { state.withLock { $0.threadNames[event.thread] = name } }
        }
    }

    private func store(_ marker: TraceMarker) {
        state.withLock { state in
            guard state.events.count + state.markers.count < capacity else {
                state.dropped += 1
                return
            }
            state.markers.append(marker)
        }
    }
}

/// An instant (no `end`) or an interval added by the app.
struct TraceMarker: Sendable {
    let name: String
    let category: String
    let start: UInt64
    let end: UInt64?
    let track: String?
}
