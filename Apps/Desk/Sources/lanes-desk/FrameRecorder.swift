import CGtk4
import Dispatch
import Foundation

/// Records every frame the window's frame clock produces (the clock itself keeps only 16), from its `after-paint`
/// signal, so recording never asks for frames; and drives scripted animations with tick callbacks (which do).
/// Under Xvfb presentation times are 0, so intervals are frame-time deltas.
@MainActor
final class FrameRecorder {
    /// Where one frame's main-thread time went (ms): GTK's frame from before-paint to after-paint (layout with our
    /// bind handlers, tick callbacks, snapshot, Cairo drawing), our after-paint hooks, and the gap since the previous
    /// frame's hooks ended (main-queue work, other GLib sources, waiting for the clock); and the main thread's CPU
    /// time over all of it (well under the wall time: the thread waited, for the clock or for a core).
    struct FrameCost: Equatable {
        var paint: Double
        var hooks: Double
        var gap: Double
        var cpu: Double
    }

    /// Frame times (µs, the frame clock's) since the window was mapped.
    private(set) var frameTimes: [Int64] = []
    /// What each frame of ``frameTimes`` cost, in the same order.
    private(set) var frameCosts: [FrameCost] = []
    private var hooks: [(Int64) -> Void] = []
    private var startHooks: [() -> Void] = []
    /// Monotonic ns: when the frame being painted began, and when the last frame's hooks ended.
    private var paintStart: UInt64 = 0
    private var lastEnd: UInt64?
    private var lastCPU: UInt64?

    /// Starts recording the frames of `widget`'s frame clock (call once it is realized).
    func install(on widget: Widget) {
        guard let clock = gtk_widget_get_frame_clock(widget) else { return }
        onSignal(raw(clock), "before-paint") { [unowned self] in
            paintStart = DispatchTime.now().uptimeNanoseconds
            for hook in startHooks { hook() }
        }
        onSignal(raw(clock), "after-paint") { [unowned self] in
            let painted = DispatchTime.now().uptimeNanoseconds
            let time = Int64(gdk_frame_clock_get_frame_time(clock))
            frameTimes.append(time)
            for hook in hooks { hook(time) }
            let end = DispatchTime.now().uptimeNanoseconds, cpu = Self.threadCPU()
            let gapStart = min(paintStart, lastEnd ?? paintStart)
            frameCosts.append(FrameCost(
                paint: Double(painted - paintStart) / 1e6, hooks: Double(end - painted) / 1e6,
                gap: Double(paintStart - gapStart) / 1e6, cpu: Double(cpu - min(cpu, lastCPU ?? cpu)) / 1e6))
            lastEnd = end
            lastCPU = cpu
        }
    }

    /// The main thread's CPU time (ns).
    private static func threadCPU() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// The frames in `range` (µs) that came more than `milliseconds` after the previous one, as
    /// "interval=paint+hooks+gap/cpu" in ms, and the sums of those parts over them.
    func slowFrames(in range: Range<Int64>, over milliseconds: Double)
        -> (text: String, paint: Double, hooks: Double, gap: Double, cpu: Double)
    {
        var parts: [String] = []
        var sums = (paint: 0.0, hooks: 0.0, gap: 0.0, cpu: 0.0)
        for index in frameTimes.indices.dropFirst()
        where range.contains(frameTimes[index]) && range.contains(frameTimes[index - 1]) {
            let interval = Double(frameTimes[index] - frameTimes[index - 1]) / 1000
            guard interval > milliseconds, index < frameCosts.count else { continue }
            let cost = frameCosts[index]
            parts.append(String(
                format: "%.1f=%.1f+%.1f+%.1f/%.1f", interval, cost.paint, cost.hooks, cost.gap, cost.cpu))
            sums.paint += cost.paint
            sums.hooks += cost.hooks
            sums.gap += cost.gap
            sums.cpu += cost.cpu
        }
        return (parts.joined(separator: " "), sums.paint, sums.hooks, sums.gap, sums.cpu)
    }

    /// The p99 and the longest of GTK's own frame work (before-paint to after-paint) and of our after-paint hooks
    /// over the frames in `range` (µs), in ms.
    func paintTimes(in range: Range<Int64>) -> (paintP99: Double, paintMax: Double, hooksMax: Double) {
        let inside = zip(frameTimes, frameCosts).filter { range.contains($0.0) }.map(\.1)
        let paints = inside.map(\.paint)
        return (percentile(paints, 0.99), paints.max() ?? 0, inside.map(\.hooks).max() ?? 0)
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
