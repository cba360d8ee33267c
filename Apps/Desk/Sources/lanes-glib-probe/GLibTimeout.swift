import CGLib

/// A repeating GLib timeout at a chosen priority that calls a main-actor closure until it returns false.
@MainActor
final class GLibTimeout {
    private let body: () -> Bool

    @discardableResult
    static func start(priority: Int32, intervalMilliseconds: UInt32, _ body: @escaping () -> Bool) -> guint {
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

    private init(_ body: @escaping () -> Bool) { self.body = body }
}
