import Foundation
import Lanes
import LanesTesting
import Synchronization
import Testing

/// What /proc says about the calling thread.
struct ThreadFacts: Sendable, Equatable {
    let tid: Int
    let nice: Int
    let name: String

    static func current() -> ThreadFacts {
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
        let tid = Int(link.split(separator: "/").last ?? "") ?? -1
        return ThreadFacts(tid: tid, nice: nice(of: "/proc/self/task/\(tid)/stat"), name: comm(tid))
    }

    /// Field 19 of a stat file (fields counted from 1; the command name in field 2 may hold spaces).
    static func nice(of path: String) -> Int {
        guard let stat = try? String(contentsOfFile: path, encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return Int.min }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 16 ? Int(fields[16]) ?? Int.min : Int.min
    }

    static func comm(_ tid: Int) -> String {
        // The kernel ends the name with one newline; anything else (a second newline) is part of the name.
        let text = (try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8)) ?? ""
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    /// The scheduler's slice for a thread in nanoseconds (`se.slice` in /proc/…/sched), nil where the kernel does not
    /// show it (before EEVDF, Linux 6.6).
    static func slice(_ tid: Int) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/task/\(tid)/sched", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("se.slice") {
            return line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
        return nil
    }

    /// The main thread's nice value: the process's normal level.
    static var processNice: Int { nice(of: "/proc/self/stat") }
}

@Suite("Thread levels", .timeLimit(.minutes(5)))
struct ThreadLevelTests {
    static func expectedNice(_ priority: WorkPriority) -> Int {
        let base = ThreadFacts.processNice
        switch priority {
        case .visible, .normal: return base
        case .prefetch, .utility: return min(19, base + 8)
        case .background: return min(19, base + 10)
        }
    }

    @Test("each item runs at the nice value of its priority's level")
    func niceFollowsPriority() async throws {
        let pool = ThreadPoolExecutor(maxThreads: 8, idleTimeout: 60)
        let queue = WorkQueue("levels", maxConcurrency: 1, executor: pool)
        for priority in [WorkPriority.background, .visible, .utility, .normal, .prefetch, .background] {
            let facts = try await queue.add(priority: priority) { _ in ThreadFacts.current() }.value
            #expect(facts.nice == Self.expectedNice(priority), "\(priority)")
        }
        #expect(pool.threadsPerLevel.allSatisfy { $0 >= 1 })
    }

    @Test("a pool with a ceiling runs items above it at the ceiling's level, in priority order")
    func ceilingCapsTheLevel() async throws {
        let pool = ThreadPoolExecutor(maxThreads: 4, idleTimeout: 60, ceiling: .background)
        let queue = WorkQueue("capped", maxConcurrency: 1, executor: pool)
        queue.suspend()
        let order = Recorder<WorkPriority>()
        let items = [WorkPriority.background, .normal, .visible, .utility].map { priority in
            queue.add(priority: priority) { _ in
                order.append(priority)
                return ThreadFacts.current()
            }
        }
        queue.resume()
        for item in items { #expect(try await item.value.nice == Self.expectedNice(.background)) }
        #expect(order.elements == [.visible, .normal, .utility, .background])
        #expect(pool.threadsPerLevel[1] == 0 && pool.threadsPerLevel[2] == 0)
        let task = Task(executorPreference: pool.taskExecutor(priority: .visible)) { ThreadFacts.current().nice }
        #expect(await task.value == Self.expectedNice(.background))
    }

    @Test("low levels ask for a 0.1 ms slice, so a waking main thread preempts them; the normal level keeps the default")
    func lowLevelsUseShortSlices() async throws {
        let pool = ThreadPoolExecutor(maxThreads: 8, idleTimeout: 600)
        let queue = WorkQueue("slices", maxConcurrency: 1, executor: pool)
        var slices: [WorkPriority: Int] = [:]
        for priority in [WorkPriority.background, .utility, .normal] {
            let tid = try await queue.add(priority: priority) { _ in ThreadFacts.current().tid }.value
            guard let slice = ThreadFacts.slice(tid) else { return }  // the kernel does not show slices
            slices[priority] = slice
        }
        // Linux 6.12+ honours a requested slice; an older EEVDF kernel shows its default for all three.
        guard slices[.normal] != 100_000 else { return }
        #expect(slices[.background] == 100_000)
        #expect(slices[.utility] == 100_000)
        #expect(slices[.normal]! > 100_000)
    }

    @Test("pool threads are named after their queue, within Linux's 15 bytes")
    func threadNames() async throws {
        let pool = ThreadPoolExecutor(maxThreads: 4, idleTimeout: 600)
        let cases = [("io", "lanes: io"), ("image decode", "image decode"), ("a very long queue name", "a very long que"),
                     ("décodage œuvres", "décodage œuvr")]
        for (queueName, expected) in cases {
            let queue = WorkQueue(queueName, maxConcurrency: 1, executor: pool)
            let facts = try await queue.add { _ in ThreadFacts.current() }.value
            #expect(facts.name == expected)
            #expect(facts.name.utf8.count <= 15)
        }
    }

    @Test("an item lent visible by a waiting dependent starts on a normal-level thread")
    func lentVisibleStartsAtNormal() async throws {
        let pool = ThreadPoolExecutor(maxThreads: 8, idleTimeout: 60)
        let downloads = WorkQueue("downloads", maxConcurrency: 1, executor: pool)
        let renders = WorkQueue("renders", maxConcurrency: 1, executor: pool)
        downloads.suspend()
        let download = downloads.add(priority: .background) { _ in ThreadFacts.current() }
        let render = renders.add(priority: .visible, after: [download]) { _ in }
        #expect(download.effectivePriority == .visible)
        downloads.resume()
        #expect(try await download.value.nice == Self.expectedNice(.visible))
        try await render.value
    }

    @Test("an item already running at a low level keeps that level when a dependent lends it visible")
    func runningItemKeepsItsLevel() async throws {
        let pool = ThreadPoolExecutor(maxThreads: 8, idleTimeout: 60)
        let queue = WorkQueue("running", maxConcurrency: 1, executor: pool)
        let started = Gate()
        let lent = Gate()
        let item = queue.add(priority: .background) { _ in
            started.open()
            lent.wait()
            return ThreadFacts.current()
        }
        await started.wait()
        let dependent = queue.add(priority: .visible, after: [item]) { _ in }
        #expect(item.effectivePriority == .visible)
        lent.open()
        #expect(try await item.value.nice == Self.expectedNice(.background))
        try await dependent.value
    }

    @Test("a queue whose items change level hands each to a thread of its level, one band per level")
    func mixedLevelsHandOff() async throws {
        // Two threads at most: a band that needs a thread takes the place of an idle one of another band.
        let pool = ThreadPoolExecutor(maxThreads: 2, idleTimeout: 60)
        let queue = WorkQueue("mixed", maxConcurrency: 2, executor: pool)
        queue.suspend()
        let priorities = (0..<60).map { WorkPriority.allCases[$0 % WorkPriority.allCases.count] }
        let items = priorities.map { priority in queue.add(priority: priority) { _ in ThreadFacts.current().nice } }
        queue.resume()
        for (priority, item) in zip(priorities, items) {
            #expect(try await item.value == Self.expectedNice(priority), "\(priority)")
        }
        #expect(pool.threadCount <= 2)
    }

    @Test("no pool thread ever needs its nice value lowered: the design works without CAP_SYS_NICE")
    func neverLowersANiceValue() async throws {
        let before = ThreadPoolExecutor.niceLoweringsNeeded
        let pool = ThreadPoolExecutor(maxThreads: 3, idleTimeout: 60)
        let low = WorkQueue("low", maxConcurrency: 2, executor: pool)
        let high = WorkQueue("high", maxConcurrency: 2, executor: pool)
        // Background items add visible work from their low threads: those threads must not create the normal-level
        // threads themselves (a new thread inherits its creator's nice value).
        let spawned = (0..<6).map { index in
            low.add(priority: .background) { _ in
                high.add(priority: index % 2 == 0 ? .visible : .utility) { _ in ThreadFacts.current().nice }
            }
        }
        for item in spawned {
            let inner = try await item.value
            #expect(try await inner.value == Self.expectedNice(inner.effectivePriority))
        }
        let asyncNice = try await low.add(priority: .utility) { _ in
            await Task.yield()
            return ThreadFacts.current().nice
        }.value
        #expect(asyncNice == Self.expectedNice(.utility))
        #expect(ThreadPoolExecutor.niceLoweringsNeeded == before)
    }
}

@Suite("Task executors", .timeLimit(.minutes(5)))
struct TaskExecutorTests {
    @Test("an async body runs on a Lanes pool thread at its item's level, before and after it suspends")
    func asyncBodyRunsOnThePool() async throws {
        let pool = ThreadPoolExecutor(maxThreads: 4, idleTimeout: 600)
        let queue = WorkQueue("async levels", maxConcurrency: 1, executor: pool)
        let (first, second) = try await queue.add(priority: .background) { _ -> (ThreadFacts, ThreadFacts) in
            let first = ThreadFacts.current()
            try await Task.sleep(for: .milliseconds(1))
            return (first, ThreadFacts.current())
        }.value
        // Swift's global pool runs at the process's level: nice + 10 can only be a background pool thread.
        #expect(first.nice == ThreadLevelTests.expectedNice(.background))
        #expect(second.nice == ThreadLevelTests.expectedNice(.background))
        #expect(pool.threadsPerLevel[0] >= 1)
    }

    @Test("a queue's task executor runs a task's code on the pool at the level asked for")
    func queueTaskExecutor() async throws {
        let pool = ThreadPoolExecutor(maxThreads: 4, idleTimeout: 600)
        let queue = WorkQueue("task executor", maxConcurrency: 1, executor: pool)
        let executor = try #require(queue.taskExecutor(priority: .utility))
        let nice = await withTaskExecutorPreference(executor) {
            await Task.yield()
            return ThreadFacts.current().nice
        }
        #expect(nice == ThreadLevelTests.expectedNice(.utility))
        let task = Task(executorPreference: queue.taskExecutor(priority: .background)) { ThreadFacts.current().nice }
        #expect(await task.value == ThreadLevelTests.expectedNice(.background))
        let manual = WorkQueue("manual", maxConcurrency: 1, executor: ManualExecutor())
        #expect(manual.taskExecutor() == nil)
    }
}

@Suite("Priorities article example", .timeLimit(.minutes(5)))
struct PrioritiesArticleTests {
    @Test("Getting started, priorities: background items and a task on the queue's executor")
    func article() async throws {
        let trimmed = Recorder<Int>()
        @Sendable func trimCaches() { trimmed.append(ThreadFacts.current().nice) }
        @Sendable func rebuildIndex() async { trimmed.append(ThreadFacts.current().nice) }
        var task: Task<Void, Never>?
        // --- GettingStarted.md
        let indexing = WorkQueue("indexing", maxConcurrency: 2)
        indexing.add(priority: .background) { _ in trimCaches() }   // nice + 10 on Linux
        if let executor = indexing.taskExecutor(priority: .background) {
            task = Task(executorPreference: executor) { await rebuildIndex() }
        }
        // ---
        await task?.value
        await indexing.idle()
        #expect(trimmed.elements == [ThreadLevelTests.expectedNice(.background), ThreadLevelTests.expectedNice(.background)])
    }
}

@Suite("Thread levels at the thread limit", .timeLimit(.minutes(5)))
struct ThreadLimitLevelTests {
    @Test("at the thread limit, a parked thread of another level gives its place to the level that needs one")
    func parkedThreadMakesRoom() async throws {
        // One thread at most, and an idle timeout longer than the test: without the swap, the visible item would
        // wait for the parked background thread to time out.
        let pool = ThreadPoolExecutor(maxThreads: 1, idleTimeout: 600, linger: .zero)
        let queue = WorkQueue("one thread", maxConcurrency: 1, executor: pool)
        #expect(try await queue.add(priority: .background) { _ in ThreadFacts.current().nice }.value
            == ThreadLevelTests.expectedNice(.background))
        let deadline = ContinuousClock.now + .seconds(10)
        while queue.counts.runners > 0, ContinuousClock.now < deadline { await Task.yield() }
        #expect(try await queue.add(priority: .visible) { _ in ThreadFacts.current().nice }.value
            == ThreadLevelTests.expectedNice(.visible))
        #expect(pool.threadCount == 1)
    }
}

/// Whether the calling process may lower nice values (root, or `CAP_SYS_NICE`).
private var isPrivileged: Bool { geteuid() == 0 }

@Suite("Thread levels without privilege", .timeLimit(.minutes(5)))
struct UnprivilegedThreadLevelTests {
    @Test("unprivileged here: a thread that raised its nice value cannot lower it again",
          .enabled(if: !isPrivileged))
    func loweringIsRefused() async {
        let refused = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let thread = Thread {
                let which = __priority_which_t(PRIO_PROCESS.rawValue)
                let start = getpriority(which, 0)
                _ = setpriority(which, 0, min(19, start + 1))
                continuation.resume(returning: setpriority(which, 0, start) != 0)
            }
            thread.start()
        }
        #expect(refused)
    }

    /// Runs this suite's sibling, the "Thread levels" and "Task executors" suites, again as the user `nobody`: the
    /// levels must come out right without `CAP_SYS_NICE`. Skipped where the tests already run unprivileged (the
    /// suites then ran as they are) or where `runuser` is missing.
    /// `.heavy`: it blocks its thread for as long as the inner run takes, which must not be one of Swift's.
    @Test("the level tests pass as an unprivileged user (runuser -u nobody)", .heavy,
          .enabled(if: isPrivileged && FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser")))
    func levelsAsNobody() throws {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
        process.arguments = ["-u", "nobody", "--", executable, "--testing-library", "swift-testing",
                             "--filter", "ThreadLevelTests|TaskExecutorTests|ThreadLimitLevelTests|loweringIsRefused"]
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        try process.run()
        let text = LockedText()
        let read = DispatchSemaphore(value: 0)
        let reader = Thread {
            text.set(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
            read.signal()
        }
        reader.start()
        if done.wait(timeout: .now() + 90) == .timedOut {
            process.terminate()
            Issue.record("the unprivileged run did not finish in 90 s")
            return
        }
        #expect(read.wait(timeout: .now() + 10) == .success)
        #expect(process.terminationStatus == 0, "\(text.value.suffix(3000))")
        // The inner run was unprivileged (its refusal test ran and passed) and ran the level tests.
        #expect(text.value.contains("cannot lower it again\" passed"), "\(text.value.suffix(3000))")
        #expect(text.value.contains("each item runs at the nice value of its priority's level\" passed"))
    }
}

/// Text handed from a reader thread.
private final class LockedText: Sendable {
    private let state = Mutex<String?>(nil)
    func set(_ value: String) { state.withLock { $0 = value } }
    var value: String { state.withLock { $0 ?? "" } }
}

@Suite("Dispatch QoS", .timeLimit(.minutes(5)))
struct DispatchQoSTests {
    @Test("priorities map to the QoS libdispatch expects, and DispatchExecutor.global() runs each on that global queue")
    func globalExecutorFollowsPriority() async throws {
        #expect(WorkPriority.visible.dispatchQoS == .userInitiated)
        #expect(WorkPriority.normal.dispatchQoS == .default)
        #expect(WorkPriority.prefetch.dispatchQoS == .utility)
        #expect(WorkPriority.utility.dispatchQoS == .utility)
        #expect(WorkPriority.background.dispatchQoS == .background)
        let queue = WorkQueue("dispatch levels", maxConcurrency: 1, executor: DispatchExecutor.global())
        let background = try await queue.add(priority: .background) { _ in ThreadFacts.current() }.value
        // A turn runs at the QoS of the item that asked for it: wait until the background turn has ended.
        let deadline = ContinuousClock.now + .seconds(10)
        while queue.counts.runners > 0, ContinuousClock.now < deadline { await Task.yield() }
        let normal = try await queue.add(priority: .normal) { _ in ThreadFacts.current() }.value
        // libdispatch names its root-queue threads after their QoS and runs background ones at a higher nice value.
        #expect(background.name.hasSuffix("background-qos"))
        #expect(background.nice > ThreadFacts.processNice)
        #expect(normal.name.hasSuffix("default-qos"))
    }
}
