import CGtk

/// Records every frame the window's frame clock produces (the clock itself keeps only 16), from its `after-paint`
/// signal, so recording never asks for frames; and drives scripted animations with tick callbacks (which do).
/// Under Xvfb presentation times are 0, so intervals are frame-time deltas.
@MainActor
final class FrameRecorder {
    /// Frame times (µs, the frame clock's) since the window was mapped.
    private(set) var frameTimes: [Int64] = []
    private var hooks: [(Int64) -> Void] = []
    private var startHooks: [() -> Void] = []

    /// Starts recording the frames of `widget`'s frame clock (call once it is realized).
    func install(on widget: Widget) {
        guard let clock = gtk_widget_get_frame_clock(widget) else { return }
        onSignal(raw(clock), "before-paint") { [unowned self] in
            for hook in startHooks { hook() }
        }
        onSignal(raw(clock), "after-paint") { [unowned self] in
            let time = Int64(gdk_frame_clock_get_frame_time(clock))
            frameTimes.append(time)
            for hook in hooks { hook(time) }
        }
    }

    /// Calls `hook` with the frame time (µs) after every frame.
    func onFrame(_ hook: @escaping (Int64) -> Void) { hooks.append(hook) }

    /// Calls `hook` when a frame starts (`before-paint`), before its layout and painting.
    func onFrameStart(_ hook: @escaping () -> Void) { startHooks.append(hook) }

    /// Asks for a frame every refresh and calls `step` with its time (µs) until it returns false.
    func drive(_ widget: Widget, _ step: @escaping @MainActor (Int64) -> Bool) {
        let box = Unmanaged.passRetained(TickStep(step)).toOpaque()
        gtk_widget_add_tick_callback(
            widget,
            { _, clock, data in
                MainActor.assumeIsolated {
                    let step = Unmanaged<TickStep>.fromOpaque(data!).takeUnretainedValue()
                    return step.body(Int64(gdk_frame_clock_get_frame_time(clock)))
                        ? 1 : 0
                }
            }, box, { data in Unmanaged<TickStep>.fromOpaque(data!).release() })
    }

    /// Frames whose time falls in `range` (µs), and their intervals in ms.
    func frames(in range: Range<Int64>) -> (count: Int, intervals: [Double]) {
        let inside = frameTimes.filter { range.contains($0) }
        let intervals = zip(inside, inside.dropFirst()).map { Double($1 - $0) / 1000 }
        return (inside.count, intervals)
    }

    /// Frames in the last second before `now` (µs).
    func framesInLastSecond(now: Int64) -> Int {
        var count = 0
        for time in frameTimes.reversed() {
            if time < now - 1_000_000 { break }
            count += 1
        }
        return count
    }
}

@MainActor
private final class TickStep {
    let body: (Int64) -> Bool
    init(_ body: @escaping (Int64) -> Bool) { self.body = body }
}

/// The value at `fraction` (0...1) of `values`, or 0 when empty.
func percentile(_ values: [Double], _ fraction: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
}
