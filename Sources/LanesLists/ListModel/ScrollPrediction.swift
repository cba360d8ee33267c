import Foundation

/// Where a fling goes, as the toolkit knows it when the finger lifts: the release velocity and the time constant of
/// its exponential slow-down (it travels `velocity × timeConstant` in all). Hand it to ``ListModel/liftOff(_:)`` or
/// ``PreloadTracker/liftOff(_:offset:at:)`` and the preload plans its deadlines over the whole path at once, instead
/// of estimating it from the offsets a few frames later.
///
/// Each toolkit says it its own way; the factories translate:
///
/// ```swift
/// let gtk = ScrollPrediction.gtk(velocity: 2_400)                       // GtkScrolledWindow's kinetic scrolling
/// let uikit = ScrollPrediction.uiKit(velocity: 1_800)                   // scrollViewWillEndDragging, normal rate
/// let android = ScrollPrediction(distance: 900, duration: 1.2)          // OverScroller's final position and duration
/// ```
public struct ScrollPrediction: Sendable, Equatable {
    /// Offset units per second at lift-off (negative scrolls back).
    public var velocity: Double
    /// Seconds for the speed to fall by a factor e.
    public var timeConstant: Double

    /// A fling released at `velocity` that slows down exponentially with `timeConstant`.
    ///
    /// ```swift
    /// let fling = ScrollPrediction(velocity: 1_500, timeConstant: 0.3)   // comes to rest 450 units on
    /// ```
    public init(velocity: Double, timeConstant: Double) {
        self.velocity = velocity.isFinite ? velocity : 0
        self.timeConstant = timeConstant.isFinite && timeConstant > 0 ? timeConstant : 0
    }

    /// A fling that comes to rest `distance` away (negative: back) after about `duration` seconds (to within 1% of
    /// its travel), as Android's `OverScroller.getFinalY()` and `getDuration()` or Flutter's simulations give it.
    ///
    /// ```swift
    /// let fling = ScrollPrediction(distance: 900, duration: 1.2)
    /// ```
    public init(distance: Double, duration: Double) {
        let timeConstant = duration > 0 ? duration / log(100) : 0
        self.init(velocity: timeConstant > 0 ? distance / timeConstant : 0, timeConstant: timeConstant)
    }

    /// GTK 4's kinetic scrolling (`GtkScrolledWindow`, the `decelerate` signal's velocity): it rests `velocity / 4`
    /// away, decaying as e^(−4t).
    ///
    /// ```swift
    /// let fling = ScrollPrediction.gtk(velocity: -1_200)
    /// ```
    public static func gtk(velocity: Double) -> ScrollPrediction {
        ScrollPrediction(velocity: velocity, timeConstant: 0.25)
    }

    /// UIKit's deceleration: the velocity `scrollViewWillEndDragging` reports (in points per second) and the scroll
    /// view's `decelerationRate` per millisecond (0.998 normal, 0.99 fast).
    ///
    /// ```swift
    /// let fling = ScrollPrediction.uiKit(velocity: 3_000, decelerationRate: 0.99)
    /// ```
    public static func uiKit(velocity: Double, decelerationRate: Double = 0.998) -> ScrollPrediction {
        let rate = min(max(decelerationRate, 1e-6), 1 - 1e-9)
        return ScrollPrediction(velocity: velocity, timeConstant: -0.001 / log(rate))
    }

    /// How far the fling has gone `seconds` after lift-off.
    ///
    /// ```swift
    /// let covered = ScrollPrediction.gtk(velocity: 800).travel(after: 0.25)   // about 126 of its 200
    /// ```
    public func travel(after seconds: Double) -> Double {
        velocity * timeConstant * (1 - exp(-max(0, seconds) / max(timeConstant, 1e-9)))
    }

    /// The velocity `seconds` after lift-off.
    func velocity(after seconds: Double) -> Double {
        timeConstant > 0 ? velocity * exp(-max(0, seconds) / timeConstant) : 0
    }
}
