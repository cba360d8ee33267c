import Dispatch
import Foundation
import Lanes

/// A few microseconds of dependent integer arithmetic (a 64-bit mixer), `rounds` times over.
@inline(never)
func mixWork(_ seed: Int, rounds: Int) -> UInt64 {
    var x = UInt64(truncatingIfNeeded: seed) &+ 0x9E37_79B9_7F4A_7C15
    for _ in 0..<rounds {
        x ^= x >> 31
        x &*= 0xBF58_476D_1CE4_E5B9
        x ^= x >> 27
    }
    return x
}

/// The output array of the `concurrentPerform` contender.
struct Slots: @unchecked Sendable {
    // @unchecked Sendable: each iteration writes only its own index, and `concurrentPerform` returns after every
    // iteration has finished, before the array is read.
    let base: UnsafeMutablePointer<UInt64>
}

/// How many rounds of `mixWork` take about `micros` microseconds on this machine.
func roundsFor(micros: Double) -> Int {
    let probe = 2_000
    var best = Double.infinity
    var sink: UInt64 = 0
    for attempt in 0..<5 {
        let start = now()
        for index in 0..<50 { sink &+= mixWork(index + attempt, rounds: probe) }
        best = min(best, seconds(since: start) / 50)
    }
    return max(1, Int(Double(probe) * micros * 1e-6 / best)) + Int(sink & 1)
}

/// Times `body` once and records what it produced.
private func timed<T: Hashable>(_ checks: inout Set<T>, _ body: () -> T) -> Double {
    let start = now()
    let result = body()
    let elapsed = seconds(since: start)
    checks.insert(result)
    return elapsed
}

private func sum(_ values: [UInt64]) -> UInt64 { values.reduce(0, &+) }

/// `enumerate`: Lanes' `concurrentMap` against a serial loop, `DispatchQueue.concurrentPerform` and a TaskGroup, for
/// CPU-bound work over 10,000 elements (speedup = serial / lanes), and for 1,000,000 trivial bodies against a plain
/// `map` (trivial_ratio = lanes / serial; the chunking must keep this close to 1). The contenders take turns within
/// each repeat, so a machine whose load changes treats them alike; each reports its median.
func enumerateScenario(repeats: Int, quick: Bool) async -> Row {
    let n = 10_000
    let rounds = roundsFor(micros: quick ? 15 : 30)
    var row = Row(scenario: "enumerate", n: n)
    var checks: Set<UInt64> = []
    var samples: [String: [Double]] = [:]

    for _ in 0..<repeats {
        samples["serial", default: []].append(timed(&checks) {
            var output = [UInt64](repeating: 0, count: n)
            for index in 0..<n { output[index] = mixWork(index, rounds: rounds) }
            return sum(output)
        })
        samples["lanes", default: []].append(timed(&checks) {
            sum((try? (0..<n).concurrentMap { mixWork($0, rounds: rounds) }) ?? [])
        })
        samples["dispatch", default: []].append(timed(&checks) {
            var output = [UInt64](repeating: 0, count: n)
            output.withUnsafeMutableBufferPointer { buffer in
                let slots = Slots(base: buffer.baseAddress!)
                DispatchQueue.concurrentPerform(iterations: n) { slots.base[$0] = mixWork($0, rounds: rounds) }
            }
            return sum(output)
        })
        let start = now()
        let output = await withTaskGroup(of: (Int, UInt64).self) { group in
            for index in 0..<n { group.addTask { (index, mixWork(index, rounds: rounds)) } }
            var output = [UInt64](repeating: 0, count: n)
            for await (index, value) in group { output[index] = value }
            return output
        }
        samples["taskgroup", default: []].append(seconds(since: start))
        checks.insert(sum(output))
    }

    let trivialN = 1_000_000
    let input = Array(0..<trivialN)
    var trivialChecks: Set<Int> = []
    for _ in 0..<(repeats * 4) {
        samples["trivial_serial", default: []].append(timed(&trivialChecks) {
            let output = input.map { $0 &* 3 &+ 1 }
            return output[trivialN / 2] &+ output.count
        })
        samples["trivial_lanes", default: []].append(timed(&trivialChecks) {
            let output = (try? input.concurrentMap { $0 &* 3 &+ 1 }) ?? []
            return output.isEmpty ? -1 : output[trivialN / 2] &+ output.count
        })
    }

    func median(_ name: String) -> Double {
        let sorted = (samples[name] ?? [0]).sorted()
        return sorted[sorted.count / 2]
    }
    for name in ["serial", "lanes", "dispatch", "taskgroup", "trivial_serial", "trivial_lanes"] {
        row.time(name, median(name))
    }
    row.count("speedup", median("serial") / median("lanes"))
    row.count("dispatch_speedup", median("serial") / median("dispatch"))
    row.count("taskgroup_speedup", median("serial") / median("taskgroup"))
    row.count("element_us", median("serial") / Double(n) * 1e6)
    row.count("trivial_n", Double(trivialN))
    row.count("trivial_ratio", median("trivial_lanes") / median("trivial_serial"))
    if checks.count != 1 || trivialChecks.count != 1 { row.notes.append("results differ between contenders") }
    return row
}
