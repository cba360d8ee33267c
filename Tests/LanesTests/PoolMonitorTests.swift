import Synchronization
@testable import Lanes
import LanesTesting
import Testing

/// The pool's monitor thread (see ``PoolWidth``): its tick is a timed wait, so stopping it (or the pool going away)
/// ends its thread at once rather than when the tick is up. The ticks here last an hour: a monitor that waited one out
/// would trip the wait's deadline.
@Suite("Pool monitor", .timeLimit(.minutes(5)))
struct PoolMonitorTests {
    @Test("stop() ends a monitor in the middle of a tick at once, without a look")
    func stopCutsATickShort() async throws {
        let monitor = PoolMonitor(interval: .seconds(3600))
        let looks = Atomic<Int>(0)
        monitor.start {
            looks.add(1, ordering: .relaxed)
            return true
        }
        let exited = try await firstTick(of: monitor)
        monitor.stop()
        try await waitUntil("the monitor's thread exited (not an hour later)") { exited.isOpen }
        #expect(looks.load(ordering: .relaxed) == 0)
    }

    @Test("a pool going away ends its monitor's thread, even in the middle of a tick")
    func poolDeinitEndsItsMonitor() async throws {
        var pool: ThreadPoolExecutor? = ThreadPoolExecutor(
            maxThreads: 2, idleTimeout: 60, width: .runners(1), monitorInterval: .seconds(3600))
        let monitor = try #require(pool?.monitor)
        let exited = try await firstTick(of: monitor)
        #expect(!exited.isOpen)
        pool = nil
        try await waitUntil("the monitor's thread exited with its pool") { exited.isOpen }
    }

    /// Wakes `monitor` and waits until it is in its first tick; the gate opens when its thread exits.
    private func firstTick(of monitor: PoolMonitor) async throws -> Gate {
        monitor.wake()
        try await waitUntil("the monitor is in its first tick") { monitor.ticksBegun.load(ordering: .relaxed) == 1 }
        let exited = Gate()
        monitor.exited.whenOpen { exited.open() }
        return exited
    }
}
