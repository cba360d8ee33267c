import CLanesDispatch
import Foundation

/// The two calls a main loop needs to run main-queue work on the process's main thread: a descriptor to watch and a
/// drain to call when it becomes readable. ``MainLoop`` is built on them; a GUI toolkit's loop (GLib, for example)
/// needs only these two to do the same.
///
/// Main-queue work is everything that waits on `DispatchQueue.main`: ``WorkQueue/main`` items, `DispatchQueue.main`
/// blocks and `@MainActor` jobs (on Linux Swift's main actor enqueues on the main dispatch queue). libdispatch runs it
/// on the main thread only while a loop on the main thread drains it; a program parked in `dispatchMain()` instead has
/// it run by a worker thread.
///
/// A GLib bridge, in outline (GLib's C API is not part of Lanes; Apps/Desk's `LanesGLib` is a complete one):
///
/// ```swift fragment
/// if let fd = MainQueueDriver.wakeupDescriptor {
///     g_unix_fd_add_full(G_PRIORITY_DEFAULT, fd, G_IO_IN, { _, _, _ in
///         MainQueueDriver.drain()
///         return 1 // G_SOURCE_CONTINUE
///     }, nil, nil)
/// }
/// ```
public enum MainQueueDriver {
    private static let descriptor: Int32? = {
        let fd = clanes_main_queue_handle()
        guard fd >= 0 else { return nil }
        // libdispatch creates the eventfd non-blocking; make sure of it, so acknowledging a wake-up never blocks.
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0, flags & O_NONBLOCK == 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        return fd
    }()

    /// A descriptor that becomes readable when main-queue work (``WorkQueue/main`` items, `DispatchQueue.main` blocks,
    /// `@MainActor` jobs) is waiting. On Linux, libdispatch's main-queue eventfd (`_dispatch_get_main_queue_handle_4CF`);
    /// nil where the platform has none (Darwin, whose `RunLoop` drains the main queue itself).
    ///
    /// ```swift
    /// var pfd = pollfd(fd: MainQueueDriver.wakeupDescriptor!, events: Int16(POLLIN), revents: 0)
    /// if poll(&pfd, 1, 100) > 0 { MainQueueDriver.drain() }
    /// ```
    public static var wakeupDescriptor: Int32? { descriptor }

    /// Acknowledges the wake-up (reads the eventfd, non-blocking) and runs the main-queue work waiting now — a
    /// snapshot, so work it enqueues waits for the next call, and the descriptor is readable again when it does
    /// (`_dispatch_main_queue_callback_4CF`). Main thread only (checked with a precondition); never after
    /// `dispatchMain()` (which ends the main thread, so the precondition covers it too).
    ///
    /// Read the descriptor before draining, as this does: a loop that drains without acknowledging sees the
    /// descriptor readable forever and spins.
    ///
    /// ```swift
    /// WorkQueue.main.add { _ in print(Thread.isMainThread) } // true
    /// MainQueueDriver.drain()
    /// ```
    public static func drain() {
        precondition(MainQueue.isMainThread, "MainQueueDriver.drain() must be called on the main thread")
        if let fd = descriptor {
            var counter: UInt64 = 0
            _ = withUnsafeMutableBytes(of: &counter) { read(fd, $0.baseAddress, $0.count) }
        }
        clanes_main_queue_drain()
    }
}
