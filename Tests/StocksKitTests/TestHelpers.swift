import Foundation

/// Whether two arrays have equal length and elementwise differences within `tolerance`.
func approximatelyEqual(_ a: [Double], _ b: [Double], tolerance: Double = 1e-9) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
}

/// A deterministic noisy series: a sine wave plus a fixed pseudo-random wiggle.
func noisySeries(count: Int) -> [Double] {
    (0..<count).map { i in
        let t = Double(i)
        let wiggle = Double((i * 7919) % 13) - 6  // −6…6, repeats every 13
        return 100 + 10 * sin(t / 15) + wiggle * 0.8
    }
}
