import CGtk4
import LanesImages

// Small helpers over GTK's C API. Everything here is main-thread only (GTK is), hence @MainActor.

typealias Widget = UnsafeMutablePointer<GtkWidget>

/// Reinterprets a GObject pointer as another GObject type (what the C casting macros do, unchecked).
func gcast<T>(_ pointer: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<T> {
    pointer!.assumingMemoryBound(to: T.self)
}

func gcast<T, U>(_ pointer: UnsafeMutablePointer<U>?) -> UnsafeMutablePointer<T> {
    UnsafeMutableRawPointer(pointer!).assumingMemoryBound(to: T.self)
}

func gcast<T>(_ pointer: OpaquePointer?) -> UnsafeMutablePointer<T> {
    UnsafeMutableRawPointer(pointer!).assumingMemoryBound(to: T.self)
}

/// Opaque GTK types (GtkPicture, GdkTexture, ...) are imported as `OpaquePointer`.
func gcast(_ pointer: UnsafeMutableRawPointer?) -> OpaquePointer {
    OpaquePointer(pointer!)
}

func gcast<U>(_ pointer: UnsafeMutablePointer<U>?) -> OpaquePointer {
    OpaquePointer(pointer!)
}

func raw<U>(_ pointer: UnsafeMutablePointer<U>?) -> UnsafeMutableRawPointer? { pointer.map { UnsafeMutableRawPointer($0) } }
func raw(_ pointer: OpaquePointer?) -> UnsafeMutableRawPointer? { pointer.map { UnsafeMutableRawPointer($0) } }

/// A Swift closure kept alive by a GLib signal connection (released when the handler is disconnected).
@MainActor
private final class SignalHandler<Body> {
    let body: Body
    init(_ body: Body) { self.body = body }
}

private let releaseHandler: GClosureNotify = { data, _ in
    Unmanaged<AnyObject>.fromOpaque(data!).release()
}

@MainActor
private func connect<Body>(
    _ instance: UnsafeMutableRawPointer?, _ signal: String, _ body: Body, _ callback: GCallback
) {
    let box = Unmanaged.passRetained(SignalHandler(body) as AnyObject).toOpaque()
    g_signal_connect_data(instance, signal, callback, box, releaseHandler, GConnectFlags(rawValue: 0))
}

@MainActor
private func handler<Body>(_ data: UnsafeMutableRawPointer?) -> Body {
    (Unmanaged<AnyObject>.fromOpaque(data!).takeUnretainedValue() as! SignalHandler<Body>).body
}

/// Connects a handler for a signal with no arguments besides the instance (`clicked`, `value-changed`, `activate`).
@MainActor
func onSignal(_ instance: UnsafeMutableRawPointer?, _ signal: String, _ body: @escaping @MainActor () -> Void) {
    let callback: @convention(c) (gpointer?, gpointer?) -> Void = { _, data in
        MainActor.assumeIsolated { (handler(data) as @MainActor () -> Void)() }
    }
    connect(instance, signal, body, unsafeBitCast(callback, to: GCallback.self))
}

/// Connects a handler for a signal with one pointer argument (a list item factory's `setup`, `bind`, ...).
@MainActor
func onSignal(
    _ instance: UnsafeMutableRawPointer?, _ signal: String,
    _ body: @escaping @MainActor (UnsafeMutableRawPointer?) -> Void
) {
    let callback: @convention(c) (gpointer?, gpointer?, gpointer?) -> Void = { _, argument, data in
        MainActor.assumeIsolated { (handler(data) as @MainActor (UnsafeMutableRawPointer?) -> Void)(argument) }
    }
    connect(instance, signal, body, unsafeBitCast(callback, to: GCallback.self))
}

/// Connects a handler for a signal with one unsigned argument (a list view's `activate` with its position).
@MainActor
func onSignal(_ instance: UnsafeMutableRawPointer?, _ signal: String, _ body: @escaping @MainActor (UInt32) -> Void) {
    let callback: @convention(c) (gpointer?, guint, gpointer?) -> Void = { _, argument, data in
        MainActor.assumeIsolated { (handler(data) as @MainActor (UInt32) -> Void)(argument) }
    }
    connect(instance, signal, body, unsafeBitCast(callback, to: GCallback.self))
}

/// Calls `body` with the key value of each key pressed while focus is inside `widget` (a bubble-phase
/// `GtkEventControllerKey`); `body` returns whether it handled the key.
@MainActor
func onKeyPress(_ widget: Widget, _ body: @escaping @MainActor (UInt32) -> Bool) {
    let controller = gtk_event_controller_key_new()!
    let callback: @convention(c) (gpointer?, guint, guint, GdkModifierType, gpointer?) -> gboolean = {
        _, key, _, _, data in
        MainActor.assumeIsolated { (handler(data) as @MainActor (UInt32) -> Bool)(key) ? 1 : 0 }
    }
    connect(raw(controller), "key-pressed", body, unsafeBitCast(callback, to: GCallback.self))
    gtk_widget_add_controller(widget, controller)
}

/// Calls `body` for every input event `window` receives, before any widget handles it (a capture-phase
/// `GtkEventControllerLegacy` that lets every event through).
@MainActor
func onInputEvent(_ window: Widget, _ body: @escaping @MainActor () -> Void) {
    let controller = gtk_event_controller_legacy_new()!
    gtk_event_controller_set_propagation_phase(controller, GTK_PHASE_CAPTURE)
    let callback: @convention(c) (gpointer?, gpointer?, gpointer?) -> gboolean = { _, _, data in
        MainActor.assumeIsolated { (handler(data) as @MainActor () -> Void)() }
        return 0  // GDK_EVENT_PROPAGATE
    }
    connect(raw(controller), "event", body, unsafeBitCast(callback, to: GCallback.self))
    gtk_widget_add_controller(window, controller)
}

/// Keeps a Swift object alive as long as a GObject, under `key` (`g_object_set_data_full`).
@MainActor
func attach(_ object: AnyObject, to instance: UnsafeMutableRawPointer?, key: String) {
    g_object_set_data_full(
        gcast(instance), key, Unmanaged.passRetained(object).toOpaque(),
        { data in Unmanaged<AnyObject>.fromOpaque(data!).release() })
}

/// The Swift object attached to `instance` under `key`.
@MainActor
func attached<T: AnyObject>(_ instance: UnsafeMutableRawPointer?, key: String, as _: T.Type = T.self) -> T? {
    guard let data = g_object_get_data(gcast(instance), key) else { return nil }
    return Unmanaged<AnyObject>.fromOpaque(data).takeUnretainedValue() as? T
}

/// A GdkTexture holding `bitmap`'s pixels (RGBA8, straight alpha). Textures are immutable and thread-safe.
func makeTexture(_ bitmap: Bitmap) -> OpaquePointer {
    let bytes = bitmap.withUnsafePixels { g_bytes_new($0.baseAddress, gsize($0.count)) }
    defer { g_bytes_unref(bytes) }
    return gdk_memory_texture_new(
        Int32(bitmap.width), Int32(bitmap.height), GDK_MEMORY_R8G8B8A8, bytes, gsize(bitmap.bytesPerRow))
}

/// Shows `texture` in `picture` and drops the caller's reference.
@MainActor
func setTexture(_ texture: OpaquePointer?, in picture: Widget) {
    gtk_picture_set_paintable(gcast(picture), texture)
    if let texture { g_object_unref(raw(texture)) }
}

@MainActor
func setLabel(_ label: Widget, _ text: String) {
    gtk_label_set_text(gcast(label), text)
}

/// Connects a handler for a signal with two double arguments (a scroll controller's `decelerate` with its velocity).
@MainActor
func onSignal(
    _ instance: UnsafeMutableRawPointer?, _ signal: String, _ body: @escaping @MainActor (Double, Double) -> Void
) {
    let callback: @convention(c) (gpointer?, Double, Double, gpointer?) -> Void = { _, x, y, data in
        MainActor.assumeIsolated { (handler(data) as @MainActor (Double, Double) -> Void)(x, y) }
    }
    connect(instance, signal, body, unsafeBitCast(callback, to: GCallback.self))
}
