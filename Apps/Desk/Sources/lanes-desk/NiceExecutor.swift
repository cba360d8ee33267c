import Foundation
import Lanes

/// A small fixed pool whose threads run at a raised nice value, for the app's image and chart work: on a machine
/// whose cores are busy, the kernel then gives the main thread (nice 0) the CPU first, so frames and input are not
/// delayed by the app's own background work (see notes on Linux thread priorities: 8 spinning threads at nice 0 put
/// 3.6 ms of p99 latency on the main thread, at nice 10 0.09 ms).
final class NiceExecutor: WorkExecutor, @unchecked Sendable {
    // `runners` is guarded by `condition`'s lock; the rest is immutable.
    private let condition = NSCondition()
    private var runners: [WorkRunner] = []
    private var head = 0

    /// Starts `threads` threads at nice `nice` (they live as long as the process).
    init(threads: Int, nice: Int32, name: String) {
        for index in 0..<max(1, threads) {
            let thread = Thread { [self] in
                // On Linux the nice value is per thread, and `who` = 0 names the calling thread.
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice)
                work()
            }
            thread.name = "\(name) \(index)"
            thread.start()
        }
    }

    func schedule(_ runner: WorkRunner) {
        condition.lock()
        runners.append(runner)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while head == runners.count { condition.wait() }
            let runner = runners[head]
            head += 1
            if head == runners.count {
                runners.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            runner.run()
        }
    }
}
