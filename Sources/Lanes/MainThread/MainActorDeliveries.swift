// Main-actor variants of the toolkit's deliveries: timers, debounce, throttle, readable descriptors and hitches
// (SignalSource has its own, beside it).
// Each one delivers on `WorkQueue.main` (the main dispatch queue, which is the main actor's executor), so a
// `@MainActor` handler runs there without `MainActor.assumeIsolated` in the caller's code.

/// `handler` as a plain closure for a delivery on ``WorkQueue/main``, whose items run on the main dispatch queue: the
/// main actor's executor (package-wide: the image pipeline's main-actor loads deliver the same way).
package func onMainActor<Value: Sendable>(_ handler: @escaping @MainActor (Value) -> Void) -> @Sendable (Value) -> Void {
    { value in MainActor.assumeIsolated { handler(value) } }
}

extension LaneTimer {
    /// Calls a main-actor `action` once, `delay` from now, on the main queue.
    ///
    /// ```swift
    /// @MainActor final class Toast { var visible = true }
    /// let toast = Toast()
    /// LaneTimer.afterOnMain(.seconds(2)) { toast.visible = false }
    /// ```
    @discardableResult
    public static func afterOnMain(
        _ delay: Duration, leeway: Duration = .zero, clock: any LaneClock = SystemLaneClock(),
        label: String = "timer", _ action: @escaping @MainActor () -> Void
    ) -> LaneTimer {
        after(delay, leeway: leeway, on: .main, clock: clock, label: label) {
            MainActor.assumeIsolated { action() }
        }
    }

    /// Calls a main-actor `action` every `interval` on the main queue until cancelled.
    ///
    /// ```swift
    /// @MainActor final class Clock { var ticks = 0 }
    /// let face = Clock()
    /// let tick = LaneTimer.everyOnMain(.seconds(1)) { face.ticks += 1 }
    /// tick.cancel()
    /// ```
    public static func everyOnMain(
        _ interval: Duration, leeway: Duration = .zero, clock: any LaneClock = SystemLaneClock(),
        label: String = "timer", _ action: @escaping @MainActor () -> Void
    ) -> LaneTimer {
        every(interval, leeway: leeway, on: .main, clock: clock, label: label) {
            MainActor.assumeIsolated { action() }
        }
    }
}

extension Debouncer {
    /// A debouncer whose deliveries run on the main actor.
    ///
    /// ```swift
    /// @MainActor final class SearchBox { var query = "" }
    /// let box = SearchBox()
    /// let search = Debouncer<String>(interval: .milliseconds(300), onMain: { box.query = $0 })
    /// search.send("lanes")
    /// ```
    public convenience init(
        interval: Duration, clock: any LaneClock = SystemLaneClock(), label: String = "debounce",
        onMain handler: @escaping @MainActor (Value) -> Void
    ) {
        self.init(interval: interval, on: .main, clock: clock, label: label, onMainActor(handler))
    }
}

extension Throttler {
    /// A throttler whose deliveries run on the main actor.
    ///
    /// ```swift
    /// @MainActor final class Meter { var level = 0 }
    /// let meter = Meter()
    /// let throttle = Throttler<Int>(interval: .milliseconds(100), onMain: { meter.level = $0 })
    /// throttle.send(3)
    /// ```
    public convenience init(
        interval: Duration, edges: ThrottleEdges = .both, clock: any LaneClock = SystemLaneClock(),
        label: String = "throttle", onMain handler: @escaping @MainActor (Value) -> Void
    ) {
        self.init(interval: interval, edges: edges, on: .main, clock: clock, label: label, onMainActor(handler))
    }
}

extension ReadabilitySource {
    /// Watches `fileDescriptor` and calls a main-actor `handler` on the main queue when it has data. The descriptor
    /// is read inside the handler, on the main thread; use it for small inputs such as keystrokes.
    ///
    /// ```swift
    /// @MainActor final class Keys { var typed: [UInt8] = [] }
    /// let keys = Keys()
    /// let input = ReadabilitySource(fileDescriptor: 0, label: "keys", onMain: { readable in
    ///     if case .bytes(let bytes) = readable.read() { keys.typed += bytes }
    /// })
    /// input.cancel()
    /// ```
    public convenience init(
        fileDescriptor: Int32, label: String = "readable", closeOnCancel: Bool = false,
        onMain handler: @escaping @MainActor (Readable) -> Void
    ) {
        self.init(
            fileDescriptor: fileDescriptor, on: .main, label: label, closeOnCancel: closeOnCancel, onMainActor(handler))
    }
}

extension ResponsivenessMonitor {
    /// Calls a main-actor `handler` with each hitch, on the main queue.
    ///
    /// ```swift
    /// @MainActor final class HUD { var lastHitch = "" }
    /// let hud = HUD()
    /// let monitor = ResponsivenessMonitor(target: .main)
    /// monitor.onMainHitch { hitch in hud.lastHitch = "\(hitch.duration)" }
    /// ```
    public func onMainHitch(_ handler: @escaping @MainActor (Hitch) -> Void) {
        onHitch(on: .main, onMainActor(handler))
    }
}
