import CLanesGLib
import Foundation
import Lanes

/// A GLib source that runs libdispatch's main queue — `DispatchQueue.main`, Lanes' `WorkQueue.main` and every
/// `@MainActor` job — on the thread that runs the GLib main loop (the process's main thread).
///
/// GLib's loop never drains libdispatch's main queue by itself. This source watches the queue's wake-up eventfd (no
/// polling: an idle loop sleeps in `poll`; Lanes' `MainQueueDriver` provides the descriptor and the drain), and each
/// dispatch drains one snapshot of the queue — work enqueued while it runs waits for the next iteration — so other
/// sources get their turn between snapshots. Its priority sits just
/// below GTK's redraw (``defaultPriority``, 130: `GDK_PRIORITY_REDRAW` is 120), so a flooded main queue never
/// starves frames, while input, layout and painting still run before it.
///
/// The source may recurse (`g_source_set_can_recurse`): GLib otherwise takes a non-recursive source's descriptor out
/// of the poll set around every dispatch and puts it back, and each of those two changes signals the context's own
/// wake-up eventfd, which costs two writes and one more loop iteration per drain. A nested main loop inside a
/// main-queue job still runs no main-queue work out of turn: libdispatch's drain does nothing while a drain is running
/// (the job's wake-up is acknowledged and signalled again when the outer drain ends), as with CoreFoundation.
///
/// ```swift
/// let source = MainQueueSource()
/// source.attach()                 // to the default main context
/// g_main_loop_run(loop)           // DispatchQueue.main and @MainActor work now runs here
/// source.detach()
/// ```
@MainActor
public final class MainQueueSource {
    /// Just after GTK's redraw (`GDK_PRIORITY_REDRAW` = 120) and layout (110); before default idle work (200).
    public static let defaultPriority: Int32 = 130

    /// The GLib priority the source runs at (lower runs first).
    public let priority: Int32
    /// How many times the source has drained the main queue (`source.dispatches` after a burst of work shows how
    /// many loop iterations it took).
    public private(set) var dispatches = 0
    /// Called on the main thread before each drain, that is whenever main-queue work is about to run. An app that
    /// stops its own timers while nothing happens starts them again here.
    ///
    /// ```swift
    /// source.willDrain = { activity.noteWork() }
    /// ```
    public var willDrain: (@MainActor () -> Void)?

    private var sourceID: guint = 0
    private let descriptor: Int32

    /// A source at `priority` (``defaultPriority`` unless you have a reason). Create it on the main thread.
    ///
    /// ```swift
    /// let source = MainQueueSource(priority: MainQueueSource.defaultPriority)
    /// ```
    public init(priority: Int32 = MainQueueSource.defaultPriority) {
        precondition(Thread.isMainThread, "MainQueueSource drains the main queue: create it on the main thread")
        self.priority = priority
        guard let descriptor = MainQueueDriver.wakeupDescriptor else {
            preconditionFailure("this platform's main queue has no wake-up descriptor (its own run loop drains it)")
        }
        self.descriptor = descriptor
    }

    /// Attaches the source to the thread-default main context (the global default one when none is pushed).
    /// Attaching twice does nothing.
    ///
    /// ```swift
    /// source.attach()
    /// ```
    public func attach() {
        guard sourceID == 0 else { return }
        let box = Unmanaged.passRetained(self).toOpaque()
        sourceID = g_unix_fd_add_full(
            priority, descriptor, G_IO_IN,
            { _, _, data in
                guard let data else { return gboolean(G_SOURCE_REMOVE) }
                return MainActor.assumeIsolated {
                    Unmanaged<MainQueueSource>.fromOpaque(data).takeUnretainedValue().dispatch()
                }
            },
            box,
            { data in
                guard let data else { return }
                // The context releases its reference when the source is destroyed (on the main thread).
                Unmanaged<MainQueueSource>.fromOpaque(data).release()
            })
        if let source = g_main_context_find_source_by_id(nil, sourceID) { g_source_set_can_recurse(source, 1) }
        // Work enqueued before the source existed produced a wake-up the fd still holds; nothing else is needed.
    }

    /// Removes the source from its context. The main queue's work then waits until a source is attached again.
    ///
    /// ```swift
    /// source.detach()
    /// ```
    public func detach() {
        guard sourceID != 0 else { return }
        g_source_remove(sourceID)
        sourceID = 0
    }

    private func dispatch() -> gboolean {
        willDrain?()
        dispatches += 1
        MainQueueDriver.drain()
        return gboolean(G_SOURCE_CONTINUE)
    }
}
