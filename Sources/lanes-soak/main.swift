// lanes-soak: the engine's random-graph stress (`GraphStress`, as in the test suite) and its queue stress
// (`QueueStress`: producers, priority changes, suspend/resume, barriers, cancelAll on 8 runners) run round after round
// for a given time, each round with the next seed, with the state machines' internal checks on. Built by `scripts/soak`
// in release mode with `-DLANES_INTERNAL_CHECKS` (without the define there are no checks and no runner hooks, and
// the taken-after-cancelAll check is skipped).
//
//     lanes-soak MINUTES [SEED] [ITEMS-PER-ROUND]
//
// Prints one line per round and a summary; exits 1 at the first round with a violation (its seed reproduces it).
import Foundation
import Lanes
import LanesTesting

let arguments = CommandLine.arguments.dropFirst()
guard let minutes = arguments.first.flatMap(Double.init), minutes > 0 else {
    FileHandle.standardError.write(Data("usage: lanes-soak MINUTES [SEED] [ITEMS-PER-ROUND]\n".utf8))
    exit(2)
}
let firstSeed = arguments.dropFirst().first.flatMap { UInt64($0) } ?? 1
let perRound = arguments.dropFirst(2).first.flatMap { Int($0) } ?? 200_000
InternalChecks.isEnabled = true

let clock = ContinuousClock()
let start = clock.now
let end = start.advanced(by: .milliseconds(Int(minutes * 60_000)))
var total = GraphStressReport()
var round = 0
var queueRounds = 0, queueViolations = 0
while clock.now < end {
    let seed = firstSeed &+ UInt64(round)
    let began = clock.now
    let report = await GraphStress(seed: seed, items: perRound).run()
    let took = clock.now - began
    total.add(report)
    round += 1
    let rate = Double(report.items) / (Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18)
    print("round \(round) seed \(seed): \(report.items) items in \(took), \(Int(rate)) items/s; "
          + "\(report.cancelledPending) cancelled pending, \(report.cancelAlls) cancelAll, \(report.violationCount) violations")
    if report.violationCount > 0 {
        print("FAILED (reproduce with: lanes-soak 0.01 \(seed) \(perRound))\n\(report)")
        exit(1)
    }
    // Then the queue engine's own stress (`QueueStress`) with the same seed and as many items.
    let queueReport = await QueueStress(seed: seed, itemsPerProducer: perRound / 4).run()
    queueRounds += 1
    queueViolations += queueReport.violationCount
    print("queue round \(round) seed \(seed): \(queueReport)")
    if queueReport.violationCount > 0 {
        print("FAILED (reproduce with: lanes-soak 0.01 \(seed) \(perRound))")
        exit(1)
    }
}
print("soak passed: \(round) graph rounds and \(queueRounds) queue rounds (\(queueViolations) violations) in \(clock.now - start)\n\(total)")
