import CGtk4
import Foundation

/// GTK's kinetic scrolling fed to the photo grid's preload: a capture-phase `GtkEventControllerScroll` (vertical,
/// kinetic) on the scrolled window that handles no event itself (the scrolled window scrolls as before) and hears
/// when a touchpad scroll begins (`scroll-begin`: a finger is down, so the fling's prediction is dropped) and the
/// velocity the fingers left with (`decelerate`), which it turns into the adjustment's pixels per second exactly as
/// `GtkScrolledWindow`'s own `decelerate` handler does before it starts the kinetic motion (× 2.5 for surface deltas,
/// × the wheel step `page^(2/3)` for wheel deltas). GTK then rests `v / 4` away, decaying as e^(−4t):
/// `ScrollPrediction.gtk(velocity:)`, which the page hands to its preload tracker (``PhotosPage/liftOff(pixelsPerSecond:)``).
///
/// Under Xvfb there is no touchpad (X11's wheel buttons are discrete and never decelerate), so `--script fling` calls
/// the same two entry points, ``began()`` and ``decelerated(velocityX:velocityY:unit:)``, with a surface velocity, as
/// the signal handlers do, and then moves the adjustment along GTK's kinetic curve itself (``restOffset(from:pixelsPerSecond:)``,
/// ``offset(from:pixelsPerSecond:after:)``); everything from the velocity on is the code a real fling runs.
@MainActor
final class KineticScroll {
    /// GtkScrolledWindow's factor from a surface-unit scroll velocity to the adjustment's (`MAGIC_SCROLL_FACTOR`).
    static let surfaceFactor = 2.5
    /// GTK's kinetic deceleration: the speed falls by e every quarter second.
    static let friction = 4.0

    private unowned let page: PhotosPage
    /// Lift-offs and touch-downs heard (from GTK or the script).
    private(set) var liftOffs = 0
    private(set) var touchDowns = 0

    init(page: PhotosPage, scroller: Widget) {
        self.page = page
        let flags = GtkEventControllerScrollFlags(
            GTK_EVENT_CONTROLLER_SCROLL_VERTICAL.rawValue | GTK_EVENT_CONTROLLER_SCROLL_KINETIC.rawValue)
        let controller = gtk_event_controller_scroll_new(flags)!
        gtk_event_controller_set_propagation_phase(controller, GTK_PHASE_CAPTURE)
        onSignal(raw(controller), "scroll-begin") { [unowned self] in began() }
        let scroll = UnsafeMutableRawPointer(controller)
        onSignal(raw(controller), "decelerate") { [unowned self] (x: Double, y: Double) in
            let unit = gtk_event_controller_scroll_get_unit(gcast(scroll))
            decelerated(velocityX: x, velocityY: y, unit: unit)
        }
        gtk_widget_add_controller(scroller, controller)
    }

    /// A finger touched the touchpad (`scroll-begin`): the list is held, not flung.
    func began() {
        touchDowns += 1
        page.touchDown()
    }

    /// The fingers lifted with this velocity in the controller's units (`decelerate`): the fling's whole path is known.
    func decelerated(velocityX: Double, velocityY: Double, unit: GdkScrollUnit) {
        liftOffs += 1
        page.liftOff(pixelsPerSecond: Self.adjustmentVelocity(velocityY, unit: unit, pageSize: page.pageSize))
    }

    /// The adjustment's pixels per second for a `decelerate` velocity, as GtkScrolledWindow scales it.
    static func adjustmentVelocity(_ velocity: Double, unit: GdkScrollUnit, pageSize: Double) -> Double {
        unit == GDK_SCROLL_UNIT_WHEEL ? velocity * pow(max(1, pageSize), 2.0 / 3.0) : velocity * surfaceFactor
    }

    /// Where GTK's kinetic motion from `start` at `pixelsPerSecond` comes to rest.
    static func restOffset(from start: Double, pixelsPerSecond: Double) -> Double {
        start + pixelsPerSecond / friction
    }

    /// Where GTK's kinetic motion from `start` at `pixelsPerSecond` is `seconds` later.
    static func offset(from start: Double, pixelsPerSecond: Double, after seconds: Double) -> Double {
        start + pixelsPerSecond / friction * (1 - exp(-friction * max(0, seconds)))
    }
}
