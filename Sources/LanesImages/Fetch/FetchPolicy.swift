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
/// Only connection failures, timeouts, short bodies and HTTP 5xx are retried, and only while `retry.shouldRetry`
/// agrees; HTTP 4xx, redirect loops, empty, oversized or too slow bodies and file errors fail at once. A 5xx answer's
/// `Retry-After` (seconds or an HTTP date) is honoured up to ``maxRetryAfter``. Every fetch ends: nothing arriving
/// for ``timeout``, a body slower than ``minimumRate``, or the whole fetch outliving ``deadline`` ends it.
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
    /// The longest a fetch may take in all — every attempt, and the waits between them — before it fails with
    /// ``FetchError/deadlineExceeded(url:seconds:)`` (nil: no overall limit).
    public var deadline: Duration?
    /// The slowest body accepted, once the response head has arrived (nil: any rate).
    public var minimumRate: TransferRate?
    /// The most redirects one attempt follows; more, or a redirect to a URL already visited, fails with
    /// ``FetchError/redirectLoop(url:)``. Redirects only ever go to `http(s)` URLs.
    public var maxRedirects: Int
    /// The longest `Retry-After` honoured; a longer one is cut to this (and the wait still ends by ``deadline``).
    public var maxRetryAfter: Duration

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
        maxBytes: Int = FetchPolicy.defaultMaxBytes, clock: any LaneClock = SystemLaneClock(),
        deadline: Duration? = .seconds(300), minimumRate: TransferRate? = FetchPolicy.defaultMinimumRate,
        maxRedirects: Int = 10, maxRetryAfter: Duration = .seconds(30)
    ) {
        self.timeout = timeout
        self.retry = retry
        self.maxBytes = max(0, maxBytes)
        self.clock = clock
        self.deadline = deadline
        self.minimumRate = minimumRate
        self.maxRedirects = max(0, maxRedirects)
        self.maxRetryAfter = maxRetryAfter
    }

    /// The default slowest body: 1 KiB/s, averaged over 20 s (a 223 KB image sent at 10 bytes/s fails after 20 s
    /// instead of six hours; anything a person would wait for passes).
    ///
    /// ```swift
    /// let policy = FetchPolicy(minimumRate: FetchPolicy.defaultMinimumRate)
    /// ```
    public static let defaultMinimumRate = TransferRate(bytesPerSecond: 1024, window: .seconds(20))

    /// Whether `error`, ending attempt `attempt` (1-based), earns another attempt.
    func retries(after error: FetchError, attempt: Int) -> Bool {
        attempt < retry.maxAttempts && error.isRetryable && retry.shouldRetry(error)
    }
}

/// A transfer rate, averaged over a window: ``FetchPolicy/minimumRate`` fails a body that receives fewer than
/// `bytesPerSecond × window` bytes in any window after the response head.
///
/// ```swift
/// var policy = FetchPolicy()
/// policy.minimumRate = TransferRate(bytesPerSecond: 4096, window: .seconds(10))
/// ```
public struct TransferRate: Sendable, Hashable {
    /// The rate, in bytes per second.
    public var bytesPerSecond: Int
    /// How long the rate is averaged over (short bursts and pauses inside it do not matter).
    public var window: Duration

    /// Creates a rate of `bytesPerSecond` averaged over `window`.
    ///
    /// ```swift
    /// let rate = TransferRate(bytesPerSecond: 1024, window: .seconds(20))
    /// ```
    public init(bytesPerSecond: Int, window: Duration) {
        self.bytesPerSecond = max(0, bytesPerSecond)
        self.window = max(window, .milliseconds(1))
    }

    /// The fewest bytes a window must bring.
    var bytesPerWindow: Int {
        Int(Double(bytesPerSecond) * Double(window.laneNanoseconds) / 1e9)
    }
}
