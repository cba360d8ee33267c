import CLanesGLib

/// A repeating GLib timeout at a chosen priority that calls a main-actor closure until it returns false (or until
/// ``cancel(_:)``). For GLib-driven code that wants a GLib priority; `WorkQueue.main` timers work too with the bridge.
///
/// ```swift
/// GLibTimeout.start(priority: 200, intervalMilliseconds: 250) { statusBar.refresh(); return true }
/// ```
@MainActor
public final class GLibTimeout {
    private let body: () -> Bool

    /// Starts the timeout on the default main context and returns its source id (for ``cancel(_:)``).
    @discardableResult
    public static func start(
        priority: Int32 = 0, intervalMilliseconds: UInt32, _ body: @escaping @MainActor () -> Bool
    ) -> UInt32 {
        let box = Unmanaged.passRetained(GLibTimeout(body)).toOpaque()
        return g_timeout_add_full(
            priority, intervalMilliseconds,
            { data in
                MainActor.assumeIsolated {
                    Unmanaged<GLibTimeout>.fromOpaque(data!).takeUnretainedValue().body()
                        ? gboolean(G_SOURCE_CONTINUE) : gboolean(G_SOURCE_REMOVE)
                }
            },
            box, { data in Unmanaged<GLibTimeout>.fromOpaque(data!).release() })
    }

    /// Stops a timeout started by ``start(priority:intervalMilliseconds:_:)``.
    ///
    /// ```swift
    /// let id = GLibTimeout.start(intervalMilliseconds: 100) { tick(); return true }
    /// GLibTimeout.cancel(id)
    /// ```
    public static func cancel(_ id: UInt32) {
        g_source_remove(id)
    }

    private init(_ body: @escaping @MainActor () -> Bool) { self.body = body }
}
