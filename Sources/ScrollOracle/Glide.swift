import Foundation

/// A scroll to a known target, as a toolkit animates a wheel click or a Page Down: `rows` away, covered on an
/// ease-out curve that reaches 99% of the way in `duration` seconds (the shape of `ScrollPrediction(distance:duration:)`,
/// the "distance-duration" prediction), then snaps to the target. The next click or key press may cut it short after
/// `lasting` seconds and aim again from where the list is (``run(steps:interval:duration:)``).
public struct Glide: Sendable, Equatable {
    /// Rows to the target from where the glide starts (negative scrolls back).
    public var rows: Double
    /// Seconds to 99% of the way (the snap to the target comes then).
    public var duration: Double
    /// Seconds the glide plays before the next one takes over (or the list is still again).
    public var lasting: Double

    /// A glide of `rows` over `duration` seconds, cut after `lasting` seconds.
    public init(rows: Double, duration: Double, lasting: Double) {
        self.rows = rows
        self.duration = max(0, duration)
        self.lasting = max(0, lasting)
    }

    /// The curve's time constant: 1% of the way left at `duration`.
    public var timeConstant: Double { duration / log(100) }

    /// Rows travelled `t` seconds in (at most `lasting`).
    public func distance(at t: Double) -> Double {
        let t = min(max(0, t), lasting)
        guard duration > 0, t < duration else { return rows }
        return rows * (1 - exp(-t / timeConstant))
    }

    /// A burst of presses `interval` seconds apart, each adding its step (rows) to the target and starting a glide of
    /// `duration` seconds from where the list is to the new target, as an animated scroll re-aims when pressed again;
    /// the last glide plays to its end. The glides' travels add up to the steps'.
    public static func run(steps: [Double], interval: Double, duration: Double) -> [Glide] {
        var glides: [Glide] = []
        var position = 0.0
        var target = 0.0
        for (index, step) in steps.enumerated() {
            target += step
            let last = index == steps.count - 1
            let glide = Glide(rows: target - position, duration: duration, lasting: last ? duration : interval)
            position += glide.distance(at: glide.lasting)
            glides.append(glide)
        }
        return glides
    }
}
