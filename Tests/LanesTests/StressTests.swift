#if canImport(Glibc)
import Glibc
#endif
import Lanes
import LanesTesting
import Testing

/// The engine under a random graph (see `GraphStress`): seeded and reproducible, a few seconds in a debug build,
/// with the state machines' internal checks on. `scripts/soak MINUTES` runs the same stress for millions of items
/// in a release build.
@Suite("Engine stress", .serialized, .timeLimit(.minutes(5)))
struct StressTests {
    /// Whether this process runs under ThreadSanitizer (ten times slower: the stress is made smaller there).
    private static var isThreadSanitized: Bool {
        #if canImport(Glibc)
        return dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil
        #else
        return false
        #endif
    }

    @Test("random graphs with random cancel, cancelAll, re-prioritise, limits and suspension: every rule holds",
          arguments: [UInt64(0x5EED_0001)])
    func randomGraph(seed: UInt64) async throws {
        InternalChecks.isEnabled = true
        let stress = GraphStress(seed: seed, items: Self.isThreadSanitized ? 10_000 : 100_000)
        let report = await stress.run()
        #expect(report.violationCount == 0, "seed \(seed): \(report)")
        #expect(report.items == stress.items)
        // The run exercised what it claims to (a seed that stopped doing so would make the test pass vacuously).
        #expect(report.cancelledPending > 0 && report.cancelAlls > 0 && report.typedEdges > 0 && report.barriers > 0)
        #expect(report.succeeded > 0 && report.failed > 0 && report.cancelled > 0)
    }
}
