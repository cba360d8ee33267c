import Lanes
import LanesLists
import LanesTesting

/// A loader whose work queue and "main" delivery queue both run only when the test says so. The work function
/// records each key it runs for and can be made to wait on a gate per key.
final class LoaderHarness: Sendable {
    let workExecutor = ManualExecutor()
    let mainExecutor = ManualExecutor()
    let work: WorkQueue
    let main: WorkQueue
    let loader: ContentLoader<String, String>
    /// Keys whose work body ran, in order.
    let ran = Recorder<String>()
    /// Keys whose body saw cancellation and stopped.
    let stopped = Recorder<String>()
    private let gates = LockedValue<[String: (started: Gate, release: Gate)]>([:])

    init(costLimit: Int = 1_000, cachesFailures: Bool = false, failing: Set<String> = []) {
        work = WorkQueue("work", maxConcurrency: 1, executor: workExecutor)
        main = WorkQueue("test-main", maxConcurrency: 1, executor: mainExecutor)
        let ran = self.ran, stopped = self.stopped, gates = self.gates
        loader = ContentLoader(
            name: "test", queue: work, deliveryQueue: main, costLimit: costLimit, cost: { $0.count },
            cachesFailures: cachesFailures
        ) { key, context in
            ran.append(key)
            if let gate = gates.withLock({ $0[key] }) {
                gate.started.open()
                gate.release.wait()
            }
            if context.isCancelled {
                stopped.append(key)
                throw CancellationError()
            }
            if failing.contains(key) { throw TestFailure(key: key) }
            return "v:" + key
        }
    }

    /// Makes the body for `key` open `started` and wait for `release`.
    func gate(_ key: String) -> (started: Gate, release: Gate) {
        let pair = (started: Gate(), release: Gate())
        gates.withLock { $0[key] = pair }
        return pair
    }

    /// Waits until `count` deliveries wait on the "main" queue (from a `@MainActor` test: the wait runs off it).
    func waitForDeliveries(_ count: Int) async throws {
        let main = self.main
        try await waitUntil("\(count) deliveries on their way") { main.counts.unfinished == count }
    }

    /// Runs work and deliveries until neither has anything left.
    func settle() {
        while workExecutor.runAll() + mainExecutor.runAll() > 0 {}
    }
}

struct TestFailure: Error, Equatable {
    let key: String
}

/// A cell with a binding that logs what it was handed.
@MainActor
final class TestCell {
    let id: Int
    var shown: [String] = []
    var placeholders: [String] = []
    private(set) var content: ContentBinding<String, String>!

    init(id: Int, loader: ContentLoader<String, String>) {
        self.id = id
        content = loader.binding(placeholder: { [unowned self] key in placeholders.append(key) }) { [unowned self] key, result in
            switch result {
            case .success(let value): shown.append(value)
            case .failure(let error): shown.append("error \(key): \(error)")
            }
        }
    }
}
