/// The SplitMix64 generator (Steele, Lea & Flood, 2014): a tiny, fast 64-bit PRNG.
///
/// StocksKit uses it to expand one seed into the state of ``Xoshiro256StarStar`` and to
/// derive independent per-ticker seeds. Its output depends only on integer arithmetic, so
/// a seed gives the same sequence on every run and platform.
///
/// ```swift
/// var mix = SplitMix64(seed: 0)
/// let first = mix.next()   // 0xE220A8397B1DCDAF
/// ```
public struct SplitMix64: RandomNumberGenerator, Sendable, Equatable {
    /// The internal counter; advanced by a fixed odd constant on every call.
    public private(set) var state: UInt64

    /// Creates a generator whose first output is derived from `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// Returns the next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The xoshiro256** generator (Blackman & Vigna, 2018), seeded through ``SplitMix64``.
///
/// Fast, with a 2^256 − 1 period and good statistical quality. Deterministic: the same
/// seed yields the same sequence on every run and platform.
///
/// ```swift
/// var rng = Xoshiro256StarStar(seed: 42)
/// let u = rng.nextUnitDouble()          // in [0, 1)
/// let d = Int.random(in: 1...6, using: &rng)
/// ```
public struct Xoshiro256StarStar: RandomNumberGenerator, Sendable, Equatable {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    /// Creates a generator whose 256-bit state is four outputs of `SplitMix64(seed: seed)`.
    public init(seed: UInt64) {
        var mix = SplitMix64(seed: seed)
        s0 = mix.next()
        s1 = mix.next()
        s2 = mix.next()
        s3 = mix.next()
    }

    /// Returns the next 64 random bits.
    @inline(__always)
    public mutating func next() -> UInt64 {
        let result = rotateLeft(s1 &* 5, by: 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotateLeft(s3, by: 45)
        return result
    }

    /// Returns a uniformly distributed `Double` in `[0, 1)` built from the top 53 bits.
    ///
    /// Unlike `Double.random(in:using:)`, the mapping from bits to value is fixed here, so
    /// the result is identical on every platform and Swift version.
    @inline(__always)
    public mutating func nextUnitDouble() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// Returns an approximately standard-normal value (mean 0, variance 1).
    ///
    /// Uses the sum of four uniforms (Irwin–Hall), rescaled; it needs no logarithms or
    /// trigonometry, so results are bit-identical across platforms' maths libraries. The
    /// tails are bounded at ±2√3 ≈ ±3.46, which is fine for simulated price moves.
    @inline(__always)
    public mutating func nextApproximateNormal() -> Double {
        let sum = nextUnitDouble() + nextUnitDouble() + nextUnitDouble() + nextUnitDouble()
        return (sum - 2) * 1.7320508075688772  // √3: Var(sum of 4 uniforms) = 1/3
    }

    /// Returns an integer in `0..<upperBound` (Lemire-free modulo; bias < 2^-40 for small bounds).
    @inline(__always)
    mutating func nextIndex(below upperBound: Int) -> Int {
        Int(truncatingIfNeeded: (next() >> 24) % UInt64(upperBound))
    }
}

@inline(__always)
private func rotateLeft(_ x: UInt64, by k: UInt64) -> UInt64 {
    (x << k) | (x >> (64 - k))
}
