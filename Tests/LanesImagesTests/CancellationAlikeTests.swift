import Foundation
import Lanes
import LanesImages
import LanesTesting
import Testing

/// One `catch is CancellationError` handles every cancelled await in Lanes: a work item, an image request and a
/// memory-budget wait, each awaited from a task that is cancelled while the work is held.
@Suite("Cancellation looks like Swift's, across the libraries", .timeLimit(.minutes(5)))
struct CancellationAlikeTests {
    /// Runs `body` in a task, cancels the task (the awaited work cannot finish before `release` runs), and tells
    /// whether `catch is CancellationError` caught what the await threw.
    private func caughtAsCancellation(
        _ body: @escaping @Sendable () async throws -> Void, release: () -> Void = {}
    ) async -> Bool {
        let task = Task { () -> Bool in
            do { try await body() } catch is CancellationError { return true } catch {}
            return false
        }
        task.cancel()
        let caught = await task.value
        release()
        return caught
    }

    @Test("a work item, an image request and a budget wait all throw CancellationError")
    func alike() async throws {
        let hold = Gate()
        let queue = WorkQueue("held", maxConcurrency: 1)
        #expect(await caughtAsCancellation({ _ = try await queue.add { _ in hold.wait(); return 1 }.value },
                                           release: { hold.open() }))

        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(try Fixture.data("chelsea.png"))], holds: true)
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        #expect(await caughtAsCancellation({ _ = try await pipeline.image(for: ImageRequest(url: photoURL)) }))
        executor.runAll()

        let budget = MemoryBudget(limit: 10)
        let holder = try #require(budget.tryReserve(10))
        #expect(await caughtAsCancellation({ _ = try await budget.reserve(5, priority: .normal) }))
        holder.release()
        #expect(budget.inUse == 0)
    }
}
