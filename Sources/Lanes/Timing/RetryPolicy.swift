/// How ``WorkQueue/addRetrying(label:priority:policy:clock:_:)-5jjq2`` retries a
/// failing body: how many attempts, how long to wait between them (exponential backoff with jitter), and which
/// errors are worth another try.
///
/// ```swift
/// let policy = RetryPolicy(maxAttempts: 5, initialDelay: .milliseconds(200), multiplier: 2,
///                          maxDelay: .seconds(10), jitter: 0.2) { error in error is URLError }
/// ```
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included (at least 1).
    public var maxAttempts: Int
    /// The wait after the first failure.
    public var initialDelay: Duration
    /// Each wait is the previous one times this (2 doubles it).
    public var multiplier: Double
    /// No wait is longer than this.
    public var maxDelay: Duration
    /// Spread as a fraction of the wait: 0.2 makes each wait a uniformly random value within ±20 % of its nominal
    /// length, so clients that failed together do not retry together.
    public var jitter: Double
    /// A time limit for each attempt (it then fails with ``LanesError/timedOut(_:)``, which is retried like any
    /// other error unless `shouldRetry` says no). Nil for none.
    public var attemptTimeout: Duration?
    /// Whether an error deserves another attempt. Cancellation is never retried.
    public var shouldRetry: @Sendable (any Error) -> Bool

    /// A policy; the defaults make 3 attempts, waiting 0.2 s, then 0.4 s (±20 %), and retry every error but
    /// cancellation. `maxAttempts` below 1 counts as 1 and `multiplier` below 1 as 1.
    public init(
        maxAttempts: Int = 3, initialDelay: Duration = .milliseconds(200), multiplier: Double = 2,
        maxDelay: Duration = .seconds(30), jitter: Double = 0.2, attemptTimeout: Duration? = nil,
        shouldRetry: @escaping @Sendable (any Error) -> Bool = { _ in true }
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = initialDelay
        self.multiplier = max(1, multiplier)
        self.maxDelay = maxDelay
        self.jitter = min(1, max(0, jitter))
        self.attemptTimeout = attemptTimeout
        self.shouldRetry = shouldRetry
    }

    /// The wait after attempt `attempt` (1-based) failed: `initialDelay × multiplier^(attempt−1)`, capped at
    /// `maxDelay`, then spread by `jitter` using `unit`, a number in −1...1 (random by default).
    ///
    /// ```swift
    /// RetryPolicy(initialDelay: .seconds(1), jitter: 0).delay(afterAttempt: 3)   // 4 seconds
    /// ```
    public func delay(afterAttempt attempt: Int, unit: Double = Double.random(in: -1...1)) -> Duration {
        let cap = Double(maxDelay.laneNanoseconds)
        var nominal = Double(initialDelay.laneNanoseconds)
        var step = 1
        while step < attempt, nominal < cap {
            nominal *= multiplier
            step += 1
        }
        nominal = min(nominal, cap)
        let spread = nominal * (1 + jitter * min(1, max(-1, unit)))
        let nanoseconds = min(cap, max(0, spread))
        return .nanoseconds(Int64(min(nanoseconds, 9.2e18).rounded()))
    }

    /// Whether to try again after `error` ended attempt `attempt`.
    func retries(after error: any Error, attempt: Int) -> Bool {
        guard attempt < maxAttempts else { return false }
        if error is CancellationError { return false }
        return shouldRetry(error)
    }
}
