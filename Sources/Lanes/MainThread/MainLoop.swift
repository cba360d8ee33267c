import Dispatch
import Foundation
import Synchronization

/// The main loop for command-line apps: runs main-queue work (``WorkQueue/main`` items, `DispatchQueue.main` blocks,
/// `@MainActor` jobs) on the process's real main thread until ``stop()``.
///
/// Call it from a synchronous `main` (top-level code in `main.swift`, or a synchronous `static func main()`):
///
/// ```swift
/// // main.swift
/// MainLoop.run {
///     let app = App()          // @MainActor state, built on the main thread
///     app.start()              // schedules work; results come back with onMainCompletion
///     return app               // kept alive until the loop ends
/// }
/// // MainLoop.stop() was called: clean up and exit.
/// ```
///
/// **Return what owns the work.** The loop keeps what `body` returns alive until it ends. An object made in `body` and
/// not returned is released when `body` returns, and with it the work it owns: its queues' items, its loaders'
/// requests, and its `[weak self]` handlers, which then do nothing. Nothing is left to call ``stop()``, and the loop
/// waits for ever.
///
/// **Why not `async main` or `dispatchMain()`.** On Linux `dispatchMain()` ends the main thread (it calls
/// `pthread_exit`) and hands the main dispatch queue to a worker thread. An `async main` parks the main thread the
/// same way. Main-queue work then still runs serially, so `@MainActor` holds and ``MainQueue/isCurrent`` is true, but
/// `Thread.isMainThread` is false, and libraries that need the real main thread (GUI toolkits, some C libraries,
/// signal masks set up in `main`) break. `MainLoop` keeps the main thread: it sleeps in `poll` on libdispatch's
/// main-queue descriptor and drains the queue there (``MainQueueDriver``), the way Foundation's `RunLoop` and GLib
/// bridges do.
///
/// **Why not Foundation's `RunLoop`.** `RunLoop.main.run()` also keeps the main thread and drains the main queue, and
/// Lanes works under it (see ``WorkQueue/main``). `MainLoop` is the smaller tool for a program that has no run-loop
/// sources of its own: no CoreFoundation machinery per wake-up, and a ``stop()`` that any thread may call and that
/// returns control to the caller of ``run(_:)`` at once, where `RunLoop.run()` never returns. On platforms without a
/// main-queue descriptor (Darwin) it runs `RunLoop.main` underneath.
public enum MainLoop {
    private struct State {
        var isRunning = false
        var stopRequested = false
    }

    private static let state = LockedValue(State())
    private static let wakeups = Atomic<Int>(0)

    /// How many times a loop woke up from `poll` (tests check that an idle loop sleeps instead of spinning).
    package static var wakeupCount: Int { wakeups.load(ordering: .relaxed) }

    /// Runs `body` on the main thread, then runs main-queue work on the main thread until ``stop()`` is called
    /// (by `body` or by any later work, on any thread), keeping what `body` returns alive until then: return the
    /// object that owns the program's work. Main thread only, and not nested (both checked with a precondition).
    ///
    /// ```swift
    /// @MainActor final class Greeter {
    ///     let work = WorkQueue("work", maxConcurrency: 1)
    ///     func start() {
    ///         work.add { _ in "hello from a worker" }.onMainCompletion { [weak self] result in
    ///             guard self != nil else { return }
    ///             print((try? result.get()) ?? "failed")
    ///             MainLoop.stop()
    ///         }
    ///     }
    /// }
    ///
    /// MainLoop.run {
    ///     let greeter = Greeter()
    ///     greeter.start()
    ///     return greeter   // without this, the greeter goes when the body returns, and nothing stops the loop
    /// }
    /// ```
    public static func run<Owner>(_ body: @MainActor () throws -> Owner) rethrows {
        begin()
        defer { end() }
        try MainActor.assumeIsolated {
            let owner = try body()
            withExtendedLifetime(owner) { loop { isStopRequested } }
        }
    }

    /// Runs main-queue work on the main thread until ``stop()`` is called by work scheduled before it. Main thread
    /// only, and not nested.
    ///
    /// ```swift
    /// WorkQueue.main.add { _ in MainLoop.stop() }
    /// MainLoop.run()
    /// ```
    public static func run() {
        run { () }
    }

    /// Runs main-queue work on the main thread until `condition` holds (or ``stop()`` is called). The work already
    /// waiting runs first; then the condition is checked before the loop sleeps and after each batch of main-queue
    /// work, so make it depend on state that main-queue work changes. Main thread only.
    ///
    /// ```swift
    /// let total = queue.add { _ in sum(values) }
    /// var answer: Int?
    /// total.onMainCompletion { answer = try? $0.get() }
    /// MainLoop.run(until: answer != nil)
    /// ```
    public static func run(until condition: @autoclosure @MainActor () -> Bool) {
        begin()
        defer { end() }
        loop { MainActor.assumeIsolated { condition() } || isStopRequested }
    }

    /// Makes the running ``run(_:)`` or ``run(until:)`` return once the main-queue work in hand has run. Safe from any
    /// thread; a stop requested while no loop runs is forgotten when the next loop starts.
    ///
    /// ```swift
    /// app.onQuit = { MainLoop.stop() }
    /// ```
    public static func stop() {
        state.withLock { $0.stopRequested = true }
        DispatchQueue.main.async {}  // wakes the loop if it sleeps
    }

    /// Main thread only, and not from inside a running loop: a nested loop could never run the main-queue work that
    /// would end it (libdispatch does not drain the main queue re-entrantly).
    private static func begin() {
        precondition(Thread.isMainThread, "MainLoop.run must be called on the main thread")
        let nested = state.withLock { state -> Bool in
            defer { state = State(isRunning: true, stopRequested: false) }
            return state.isRunning
        }
        precondition(!nested, "MainLoop.run cannot be nested")
    }

    private static func end() {
        state.withLock { $0 = State() }
    }

    private static var isStopRequested: Bool { state.withLock { $0.stopRequested } }

    private static func loop(until done: () -> Bool) {
        guard let fd = MainQueueDriver.wakeupDescriptor else {
            while !done() { _ = RunLoop.main.run(mode: .default, before: .distantFuture) }
            return
        }
        // The first drain runs work enqueued before the loop started (its wake-up may have been acknowledged by an
        // earlier drain that ran a snapshot without it).
        MainQueueDriver.drain()
        while !done() {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, -1)
            wakeups.add(1, ordering: .relaxed)
            if ready < 0 && errno != EINTR { fatalError("MainLoop: poll failed (errno \(errno))") }
            if ready > 0 { MainQueueDriver.drain() }
        }
    }
}
