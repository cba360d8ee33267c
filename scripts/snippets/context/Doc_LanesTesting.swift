import Synchronization

// What the LanesTesting doc comments' examples assume: a queue under test, a child process, a counter.
let manual = ManualExecutor()
let queue = WorkQueue("queue", maxConcurrency: 2, executor: manual)
let process = Process()
let running = Atomic<Int>(0)
let clock = VirtualClock()
