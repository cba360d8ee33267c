import Foundation
@testable import Lanes
import LanesTesting

/// An executor that holds the runners a queue asks for, for the test to run each when and where it chooses (the
/// engine's runner tests: batches, a runner's next item, retired nodes).
final class HeldRunners: WorkExecutor {
    private let runners = LockedValue<[WorkRunner]>([])

    func schedule(_ runner: WorkRunner) { runners.withLock { $0.append(runner) } }
    func finishCancelled(_ sweep: @escaping @Sendable () -> Void) { sweep() }

    /// The oldest runner not yet taken, if any.
    func take() -> WorkRunner? { runners.withLock { $0.isEmpty ? nil : $0.removeFirst() } }

    /// Runs `runner` on a thread of its own; the returned gate opens when it returns.
    static func start(_ runner: WorkRunner) -> Gate {
        let done = Gate()
        Thread {
            runner.run()
            done.open()
        }.start()
        return done
    }
}
