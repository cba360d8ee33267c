import Dispatch
import Foundation
import Synchronization

/// A rendered row for the scroll benchmark: a smoothed price series rasterised into a small greyscale chart.
struct RowImage: Sendable {
    /// The row it was rendered for (a cell showing another row must never show it).
    let row: Int
    /// A process-unique number for this render, to tell whether a completed render was ever shown.
    let serial: Int
    let pixels: [UInt8]
    /// A quick rendering (the quick tier's: an eighth of the smoothing), shown until the full one comes.
    var quick = false
}

/// What the renders did, counted where they run.
final class RenderCounters: Sendable {
    let started = Atomic<Int>(0)
    let completed = Atomic<Int>(0)
    /// Renders that saw their cancellation and stopped early.
    let aborted = Atomic<Int>(0)
    /// Wall time spent in completed renders, in ns.
    let busyNanoseconds = Atomic<Int>(0)
    /// Thread CPU time spent in completed renders, in ns: beside the wall time, what of it was work and what waiting.
    let cpuNanoseconds = Atomic<Int>(0)
    private let serials = Atomic<Int>(0)

    func nextSerial() -> Int { serials.add(1, ordering: .relaxed).newValue }
}

/// The per-row render: a 2,000-point random walk, smoothed by `passes` Gaussian passes, rasterised into a 240×48
/// bitmap. The pass count is calibrated so one render costs about 2 ms of CPU on this machine. Long loops check for
/// cancellation between passes, so a row that scrolls away stops costing CPU within one pass.
struct RowRenderer: Sendable {
    static let points = 2_000
    static let width = 240
    static let height = 48
    private static let kernel: [Double] = {
        let radius = 15, sigma = 5.0
        let raw = (-radius...radius).map { offset in exp(-Double(offset * offset) / (2 * sigma * sigma)) }
        let sum = raw.reduce(0, +)
        return raw.map { $0 / sum }
    }()

    let passes: Int
    let counters: RenderCounters

    /// Renders `row`, or returns nil if `isCancelled` turned true on the way.
    ///
    /// Never inlined, nor is its loop (`smooth`): with a copy inlined at each caller, the run's renders, the
    /// calibration's and the CPU measurement each had their own copy of the hot loop, aligned differently in each
    /// build, and builds of the same schedule rendered in 1.5, 2.1 or 2.9 ms of wall against a calibration that took
    /// another copy's time (2026-11-29 log): one copy keeps the yardstick on the renders the run makes.
    @inline(never)
    func render(row: Int, isCancelled: () -> Bool = { false }) -> RowImage? {
        counters.started.add(1, ordering: .relaxed)
        let start = DispatchTime.now().uptimeNanoseconds, startCPU = threadCPUNanoseconds()
        var series = Self.series(row)
        var scratch = [Double](repeating: 0, count: Self.points)
        for _ in 0..<passes {
            if isCancelled() {
                counters.aborted.add(1, ordering: .relaxed)
                return nil
            }
            Self.smooth(series, into: &scratch)
            swap(&series, &scratch)
        }
        let pixels = Self.rasterise(series)
        counters.completed.add(1, ordering: .relaxed)
        counters.busyNanoseconds.add(Int(DispatchTime.now().uptimeNanoseconds - start), ordering: .relaxed)
        counters.cpuNanoseconds.add(Int(threadCPUNanoseconds() - startCPU), ordering: .relaxed)
        return RowImage(row: row, serial: counters.nextSerial(), pixels: pixels)
    }

    /// A deterministic random walk for the row.
    private static func series(_ row: Int) -> [Double] {
        var state = UInt64(truncatingIfNeeded: row) &* 0x9E37_79B9_7F4A_7C15 &+ 0x1234_5678
        var value = 100.0
        return (0..<points).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            value += Double(Int64(bitPattern: state >> 11) % 2_001 - 1_000) / 1_000
            return value
        }
    }

    @inline(never)
    private static func smooth(_ input: [Double], into output: inout [Double]) {
        let radius = kernel.count / 2, count = input.count
        kernel.withUnsafeBufferPointer { weights in
            input.withUnsafeBufferPointer { source in
                output.withUnsafeMutableBufferPointer { target in
                    for index in 0..<count {
                        var sum = 0.0
                        for tap in 0..<weights.count {
                            let at = min(max(index + tap - radius, 0), count - 1)
                            sum += weights[tap] * source[at]
                        }
                        target[index] = sum
                    }
                }
            }
        }
    }

    /// Column spans of the curve, anti-aliased at their ends, with a faint fill below.
    private static func rasterise(_ series: [Double]) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height)
        let low = series.min() ?? 0, high = series.max() ?? 1
        let scale = Double(height - 1) / max(high - low, 1e-9)
        let perColumn = Double(series.count) / Double(width)
        for x in 0..<width {
            let from = Int(Double(x) * perColumn), to = max(from + 1, Int(Double(x + 1) * perColumn))
            var top = Double.infinity, bottom = -Double.infinity
            for index in from..<min(to, series.count) {
                let y = Double(height - 1) - (series[index] - low) * scale
                top = min(top, y)
                bottom = max(bottom, y)
            }
            let first = Int(top), last = min(height - 1, Int(bottom.rounded(.up)))
            for y in first...max(first, last) {
                let coverage = y == first ? 1 - (top - Double(first)) : 1
                pixels[y * width + x] = UInt8(max(0, min(255, coverage * 255)))
            }
            if last + 1 < height {
                for y in (last + 1)..<height { pixels[y * width + x] = 40 }
            }
        }
        return pixels
    }

    /// Picks the number of smoothing passes that makes one render cost about `milliseconds` of CPU here. It uses the
    /// least thread CPU time of several renders: on a shared machine (or a VM whose host steals time) the typical
    /// sample is inflated, the least one is the render's own cost.
    static func calibrated(milliseconds: Double, counters: RenderCounters) -> RowRenderer {
        func cost(_ passes: Int) -> Double {
            RowRenderer(passes: passes, counters: RenderCounters()).cpuMilliseconds(samples: 15, least: true)
        }
        _ = cost(2)   // warm up
        let few = cost(2), many = cost(12)
        let perPass = max((many - few) / 10, 1e-4)
        let base = max(few - 2 * perPass, 0)
        let passes = max(1, Int(((milliseconds - base) / perPass).rounded()))
        return RowRenderer(passes: passes, counters: counters)
    }

    /// The median (or least) CPU time of one render, in ms.
    func cpuMilliseconds(samples: Int, least: Bool = false) -> Double {
        var costs: [Double] = []
        for row in 0..<samples {
            let start = threadCPUNanoseconds()
            _ = render(row: row)
            costs.append(Double(threadCPUNanoseconds() - start) / 1e6)
        }
        return least ? costs.min()! : costs.sorted()[costs.count / 2]
    }
}

/// CPU time the calling thread has used, in ns (wall time where the platform has no per-thread clock).
func threadCPUNanoseconds() -> UInt64 {
    #if canImport(Glibc) || canImport(Darwin) || canImport(Musl)
    var spec = timespec()
    if clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec) == 0 {
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
    #endif
    return DispatchTime.now().uptimeNanoseconds
}
