#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The right half of a normalised, symmetric Gaussian kernel: `weights[0]` is the centre tap,
/// `weights[k]` the taps at distance `k` on either side, truncated at `radius = ceil(3σ)`.
/// The full kernel's weights sum to 1, so flat regions stay flat.
struct GaussianKernel: Sendable, Equatable {
    let sigma: Double
    let radius: Int
    let weights: [Float]

    init(sigma: Double) {
        precondition(sigma > 0 && sigma.isFinite, "a Gaussian kernel needs a positive, finite sigma")
        self.sigma = sigma
        radius = max(1, Int((3 * sigma).rounded(.up)))
        let raw = (0...radius).map { k in exp(-Double(k * k) / (2 * sigma * sigma)) }
        let total = raw[0] + 2 * raw.dropFirst().reduce(0, +)
        weights = raw.map { Float($0 / total) }
    }
}
