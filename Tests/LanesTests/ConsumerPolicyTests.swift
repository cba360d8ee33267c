import Lanes
import LanesTesting
import Testing

private struct Refused: Error, Equatable {}

@Suite("Consumers: .fail and callback consumers", .timeLimit(.minutes(5)))
struct ConsumerPolicyTests {
    @Test(".fail passes the first step's error down the chain; a cancelled step gives CancellationError")
    func failPassesTheError() async {
        let manual = ManualExecutor()
        let queue = WorkQueue("chain", maxConcurrency: 1, executor: manual)
        let fetch = queue.add(label: "fetch") { _ -> Int in throw Refused() }
        let decode = queue.add(consuming: fetch, policy: .fail) { value, _ in value + 1 }
        let filter = queue.add(consuming: decode, policy: .fail) { value, _ in value * 2 }
        manual.runAll()
        #expect(filter.state == .failed)
        await #expect(throws: Refused.self) { try await filter.value }
        let held = queue.add(label: "held") { _ in 1 }
        let after = queue.add(consuming: held, policy: .fail) { value, _ in value }
        held.cancel()
        #expect(after.state == .failed)
        await #expect(throws: CancellationError.self) { try await after.value }
        #expect(manual.runAll() == 0)   // neither consumer ran
    }

    @Test("a callback consumer starts with its input's value, holds its slot until finish, and lends like any consumer")
    func callbackConsumer() async throws {
        let manual = ManualExecutor()
        let queue = WorkQueue("waits", maxConcurrency: 1, executor: manual)
        let finish = LockedValue<(@Sendable (Result<Int, any Error>) -> Void)?>(nil)
        let input = queue.add(label: "input", priority: .background) { _ in 20 }
        let wait = queue.add(consuming: input, priority: .visible, callback: { (value: Int, _: WorkContext, done) in
            finish.withLock { $0 = { result in done(result.map { $0 + value }) } }
        })
        #expect(input.effectivePriority == .visible)   // the consumer lends before it runs
        manual.runAll()
        #expect(wait.state == .running && finish.withLock { $0 } != nil)
        finish.withLock { $0 }?(.success(1))
        #expect(try await wait.value == 21)
    }
}
