import Lanes
import LanesImages
import LanesTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct MemoryBudgetAsyncTests {
    /// Waits until `condition` holds (the other task has queued its request), failing the test after a deadline.
    private func until(_ condition: () -> Bool) async throws {
        try await waitUntil("the other task's request", condition)
    }

    @Test func returnsAtOnceWhenThereIsRoomAndWaitsForARelease() async throws {
        let budget = MemoryBudget(limit: 10)
        let first = try await budget.reserve(7, priority: .normal)
        #expect(first.bytes == 7)
        let waiter = Task { try await budget.reserve(5, priority: .visible) }
        try await until { budget.waiting == 1 }
        #expect(budget.inUse == 7)
        first.release()
        let second = try await waiter.value
        #expect(second.bytes == 5)
        #expect(budget.inUse == 5)
        second.release()
        #expect(budget.inUse == 0)
    }

    @Test func cancellingTheTaskWithdrawsTheRequestAndThrows() async throws {
        let budget = MemoryBudget(limit: 10)
        let holder = try #require(budget.tryReserve(10))
        let waiter = Task { try await budget.reserve(5, priority: .normal) }
        try await until { budget.waiting == 1 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiter.value }
        #expect(budget.waiting == 0)
        holder.release()
        #expect(budget.inUse == 0)                    // nothing was granted to the cancelled task
    }

    @Test func anAlreadyCancelledTaskThrowsWithoutReserving() async throws {
        let budget = MemoryBudget(limit: 10)
        let gate = Gate()
        let waiter = Task {
            await gate.wait()
            return try await budget.reserve(5, priority: .normal)
        }
        waiter.cancel()
        gate.open()
        await #expect(throws: CancellationError.self) { _ = try await waiter.value }
        #expect(budget.inUse == 0)
        #expect(budget.waiting == 0)
    }

    @Test func cancellationsRacingGrantsNeverLeakBytes() async throws {
        let budget = MemoryBudget(limit: 4)
        for round in 0..<200 {
            let holder = try #require(budget.tryReserve(4))
            let waiters = (0..<4).map { _ in Task { try await budget.reserve(1, priority: .normal) } }
            if round % 2 == 0 { holder.release() }
            for waiter in waiters { waiter.cancel() }
            if round % 2 == 1 { holder.release() }
            for waiter in waiters { (try? await waiter.value)?.release() }
        }
        #expect(budget.inUse == 0)
        #expect(budget.waiting == 0)
        #expect(budget.peakInUse <= 4)
    }
}
