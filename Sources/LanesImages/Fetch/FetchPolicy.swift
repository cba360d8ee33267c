import Lanes

/// How ``DataFetcher`` fetches: how long to wait for the server, how to retry, how many bytes to accept, and which
/// clock times it all.
///
/// ```swift
/// let policy = FetchPolicy(timeout: .seconds(10),
///                          retry: RetryPolicy(maxAttempts: 4, initialDelay: .milliseconds(300)),
///                          maxBytes: 50 << 20)
/// let fetcher = DataFetcher(policy: policy)
/// ```
///
/// Only connection failures, timeouts and HTTP 5xx are retried, and only while `retry.shouldRetry` agrees;
/// HTTP 4xx, empty bodies, oversized bodies and file errors fail at once.
public struct FetchPolicy: Sendable {
    /// The longest an HTTP attempt may go without receiving anything — while connecting, while waiting for the
    /// response, or between two chunks of the body — before it fails with ``FetchError/timedOut(url:)``.
    public var timeout: Duration
    /// Attempts, backoff between them and which failures to retry (see the note above). Its `attemptTimeout`, if
    /// set, also limits each HTTP attempt as a whole, however steadily bytes arrive.
    public var retry: RetryPolicy
    /// The largest body accepted. A larger one fails with ``FetchError/tooLarge(url:limit:)`` as soon as it is
    /// known to be larger (from `Content-Length`, the file's size, or the bytes counted so far) without buffering it.
    public var maxBytes: Int
    /// The clock that times backoff waits and timeouts (a `VirtualClock` in tests).
    public var clock: any LaneClock

    /// The default retry: 3 attempts, 250 ms then 500 ms apart (±20 %).
    ///
    /// ```swift
    /// var policy = FetchPolicy()
    /// policy.retry = FetchPolicy.defaultRetry
    /// ```
    public static let defaultRetry = RetryPolicy(
        maxAttempts: 3, initialDelay: .milliseconds(250), multiplier: 2, maxDelay: .seconds(10), jitter: 0.2)

    /// The default body limit: 256 MiB.
    ///
    /// ```swift
    /// let policy = FetchPolicy(maxBytes: FetchPolicy.defaultMaxBytes / 4)
    /// ```
    public static let defaultMaxBytes = 256 << 20

    /// Creates a policy.
    ///
    /// ```swift
    /// let noRetries = FetchPolicy(retry: RetryPolicy(maxAttempts: 1))
    /// ```
    public init(
        timeout: Duration = .seconds(30), retry: RetryPolicy = FetchPolicy.defaultRetry,
        maxBytes: Int = FetchPolicy.defaultMaxBytes, clock: any LaneClock = SystemLaneClock()
    ) {
        self.timeout = timeout
        self.retry = retry
        self.maxBytes = max(0, maxBytes)
        self.clock = clock
    }

    /// Whether `error`, ending attempt `attempt` (1-based), earns another attempt.
    func retries(after error: FetchError, attempt: Int) -> Bool {
        attempt < retry.maxAttempts && error.isRetryable && retry.shouldRetry(error)
    }
}
