import CLanesGLib
import Foundation

/// Synchronous entry points that run a GLib main loop on the process's main thread with libdispatch's main queue
/// bridged into it (``MainQueueSource``): `WorkQueue.main`, `DispatchQueue.main` and `@MainActor` work all run on
/// that thread, between GLib's own sources.
///
/// Call them from a synchronous `main` (top-level code in `main.swift`), never from an `async` main: on Linux an async
/// main parks the main thread in `dispatch_main()`, which exits it, and main-actor work then runs on a worker thread.
///
/// ```swift
/// // main.swift
/// let app = gtk_application_new("org.example.App", G_APPLICATION_DEFAULT_FLAGS)
/// // ... connect "activate" ...
/// let status = GLibMain.runApplication(UnsafeMutableRawPointer(app!))
/// exit(status)
/// ```
@MainActor
public enum GLibMain {
    /// Runs `application` (a `GApplication *`, e.g. a `GtkApplication`) with `g_application_run`, the bridge
    /// attached for the duration, and returns its exit status. `willDrain` runs before each drain of the main queue
    /// (``MainQueueSource/willDrain``).
    ///
    /// ```swift
    /// let status = GLibMain.runApplication(UnsafeMutableRawPointer(app!), arguments: [CommandLine.arguments[0]])
    /// ```
    public static func runApplication(
        _ application: UnsafeMutableRawPointer, arguments: [String] = CommandLine.arguments,
        priority: Int32 = MainQueueSource.defaultPriority, willDrain: (@MainActor () -> Void)? = nil
    ) -> Int32 {
        let source = MainQueueSource(priority: priority)
        source.willDrain = willDrain
        source.attach()
        defer { source.detach() }
        var cArguments = arguments.map { strdup($0) }
        defer { cArguments.forEach { free($0) } }
        return cArguments.withUnsafeMutableBufferPointer { buffer in
            g_application_run(
                application.assumingMemoryBound(to: GApplication.self), Int32(buffer.count), buffer.baseAddress)
        }
    }

    /// Runs a plain `GMainLoop` on the default context with the bridge attached until `quit` is called (on the main
    /// queue, from any thread).
    ///
    /// ```swift
    /// GLibMain.runLoop { quit in
    ///     WorkQueue.main.add { _ in print("on the main thread"); quit() }
    /// }
    /// ```
    public static func runLoop(
        priority: Int32 = MainQueueSource.defaultPriority, _ body: (_ quit: @escaping @Sendable () -> Void) -> Void
    ) {
        let source = MainQueueSource(priority: priority)
        source.attach()
        defer { source.detach() }
        let loop = LoopHandle(g_main_loop_new(nil, 0))
        defer { g_main_loop_unref(loop.pointer) }
        body { DispatchQueue.main.async { g_main_loop_quit(loop.pointer) } }
        g_main_loop_run(loop.pointer)
    }
}

/// A `GMainLoop *` carried into the quit closure. `g_main_loop_quit` is documented thread-safe, and the loop outlives
/// every use: `runLoop` unreferences it only after `g_main_loop_run` returns.
private struct LoopHandle: @unchecked Sendable {
    let pointer: OpaquePointer?
    init(_ pointer: OpaquePointer?) { self.pointer = pointer }
}
