#if canImport(Glibc)
import Glibc
#endif
import Lanes
import LanesTesting
import Testing

/// The queue engine's promises under concurrent producers, priority changes, suspend/resume, barriers and
/// cancelAll() on 8 runners (see `QueueStress`): seeded, with the state machines' internal checks on.
@Suite("Queue stress", .serialized, .heavy, .timeLimit(.minutes(5)))
struct QueueStressTests {
    private static var isThreadSanitized: Bool {
        #if canImport(Glibc)
        return dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil
        #else
        return false
        #endif
    }

    @Test("producers, priority changes, suspend/resume, barriers and cancelAll on 8 runners: every rule holds",
          arguments: [UInt64(0x0051_7E55), 0x0051_7E56])
    func mixed(seed: UInt64) async throws {
        InternalChecks.isEnabled = true
        let stress = QueueStress(seed: seed, itemsPerProducer: Self.isThreadSanitized ? 2_000 : 20_000)
        let report = await stress.run()
        #expect(report.violationCount == 0, "seed \(seed): \(report)")
        print("queue stress, seed \(seed): \(report)")
        #expect(report.items == stress.producers * stress.itemsPerProducer)
        // The run exercised what it claims to (a seed that stopped doing so would make the test pass vacuously).
        #expect(report.cancelAlls > 0 && report.suspends > 0 && report.priorityChanges > 0, "\(report)")
        #expect(report.barriersRan > 0 && report.cancelled > 0 && report.succeeded > 0, "\(report)")
        #expect(report.mostAtOnce.count == 2 && report.mostAtOnce[1] == 1, "\(report)")
    }
}
