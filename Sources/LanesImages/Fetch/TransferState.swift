import Foundation
import Lanes

/// The state machine of one HTTP fetch across its attempts. Every method runs under the transfer's lock and returns
/// what to do once the lock is released (``TransferEffects``); the completion leaves the state the first time the
/// fetch ends, so it can be called only once.
///
/// Generic over the task reference so tests can drive it without URLSession.
struct TransferState<TaskRef: Sendable>: Sendable {
    typealias Completion = @Sendable (Result<Data, FetchError>) -> Void

    enum Phase: Sendable {
        /// Waiting for attempt `next` to start (at first, and during a backoff wait).
        case idle(next: Int)
        /// Attempt `attempt` runs as the task `taskID`.
        case running(attempt: Int, taskID: Int, task: TaskRef)
        /// Completed; nothing more happens.
        case finished
    }

    /// How a timeout check ended.
    enum TimerDecision: Sendable {
        /// Nothing to do: the attempt is over.
        case none
        /// The attempt is still within its limits: check again at this time.
        case rearm(UInt64)
        /// The attempt timed out.
        case expired(TransferEffects<TaskRef>)
    }

    /// The most reserved up front from a `Content-Length`.
    static var maxReservation: Int64 { 8 << 20 }

    let url: String
    let policy: FetchPolicy
    /// Whether each chunk is handed out as it arrives (``TransferEffects/chunk``) instead of kept: the completion then
    /// gets an empty body, and an attempt that has handed out bytes is never retried, since its consumer cannot take
    /// the body again from the start.
    let streams: Bool
    private(set) var phase: Phase = .idle(next: 1)
    private var completion: Completion?
    private var body = Data()
    /// The running attempt's body bytes so far (kept in `body`, or handed out when streaming).
    private var bodyBytes = 0
    private var status: Int?
    /// The `Content-Length` of the running attempt's response (-1: not announced).
    private var expectedLength: Int64 = -1
    /// The running attempt's `Content-Encoding` when it is not `identity` (`gzip`, `deflate`, `br`...): the transport
    /// undoes it, so the bytes delivered are decoded while `expectedLength` counts the encoded ones.
    private var contentEncoding: String?
    /// The `Retry-After` of the running attempt's response.
    private var retryAfter: Duration?
    /// When the first attempt started: the overall ``FetchPolicy/deadline`` counts from here.
    private var fetchStart: UInt64?
    private var attemptStart: UInt64 = 0
    private var lastActivity: UInt64 = 0
    /// The latest time any event reported.
    private var now: UInt64 = 0
    /// The minimum-rate window of the running attempt (from its response head): its start and bytes so far.
    private var rateWindow: (start: UInt64, bytes: Int)?
    /// The URLs the running attempt was redirected to.
    private var redirects: [String] = []
    private var timer: ScheduledToken?
    private var retry: ScheduledToken?

    init(url: String, policy: FetchPolicy, streams: Bool = false, completion: @escaping Completion) {
        self.url = url
        self.policy = policy
        self.streams = streams
        self.completion = completion
    }

    var isFinished: Bool {
        if case .finished = phase { true } else { false }
    }

    /// The running attempt's task, if any.
    var runningTask: TaskRef? {
        if case .running(_, _, let task) = phase { task } else { nil }
    }

    /// Whether attempt `attempt` may start now (the fetch is waiting for exactly it).
    func mayLaunch(_ attempt: Int) -> Bool {
        if case .idle(let next) = phase { next == attempt } else { false }
    }

    /// Attempt `attempt` starts as `task`. False if the fetch ended meanwhile (the caller drops the task).
    mutating func begin(attempt: Int, taskID: Int, task: TaskRef, now: UInt64) -> Bool {
        guard mayLaunch(attempt) else { return false }
        phase = .running(attempt: attempt, taskID: taskID, task: task)
        retry = nil
        body = Data()
        bodyBytes = 0
        status = nil
        expectedLength = -1
        contentEncoding = nil
        retryAfter = nil
        rateWindow = nil
        redirects = []
        if fetchStart == nil { fetchStart = now }
        attemptStart = now
        lastActivity = now
        self.now = max(self.now, now)
        return true
    }

    /// The response head arrived (`retryAfter`: its `Retry-After`; `contentEncoding`: its `Content-Encoding`, if any).
    ///
    /// With a `Content-Encoding` the announced length counts the encoded body while the transport delivers it
    /// decoded: the length still refuses a body over ``FetchPolicy/maxBytes`` up front (gzip and deflate never
    /// shrink an image by much, and a larger encoded body is refused either way), but only the transport can tell
    /// a short encoded body (it fails the task, see `refined(_:)`); the limit counts decoded bytes as they arrive.
    mutating func response(
        taskID: Int, status code: Int?, expectedLength: Int64, contentEncoding: String? = nil,
        retryAfter: Duration? = nil, now: UInt64
    ) -> TransferEffects<TaskRef> {
        guard case .running(_, taskID, _) = phase else { return TransferEffects() }
        lastActivity = now
        self.now = max(self.now, now)
        status = code
        self.expectedLength = expectedLength
        self.contentEncoding = Self.encoding(contentEncoding)
        self.retryAfter = retryAfter
        rateWindow = (start: now, bytes: 0)
        if let code, !(200...299).contains(code) {
            return endAttempt(.httpStatus(code: code, url: url))
        }
        if expectedLength > Int64(policy.maxBytes) {
            return endAttempt(.tooLarge(url: url, limit: policy.maxBytes))
        }
        // Room for the declared body, up to a bound: a server that only claims a large length gets no large buffer.
        if expectedLength > 0, !streams { body.reserveCapacity(Int(min(expectedLength, Self.maxReservation))) }
        var effects = TransferEffects<TaskRef>()
        if policy.minimumRate != nil {
            // The rate window ends before the armed idle timeout may: arm the timer again for the nearer time.
            if let timer { effects.tokens.append(timer) }
            timer = nil
            effects.armTimer = (taskID: taskID, at: deadline)
        }
        return effects
    }

    /// A chunk of the body arrived.
    mutating func received(taskID: Int, _ chunk: Data, now: UInt64) -> TransferEffects<TaskRef> {
        guard case .running(_, taskID, _) = phase else { return TransferEffects() }
        lastActivity = now
        self.now = max(self.now, now)
        // Counted as delivered, which is after any Content-Encoding was undone: a small gzip body that inflates
        // without bound stops here at the limit.
        guard bodyBytes + chunk.count <= policy.maxBytes else {
            return endAttempt(.tooLarge(url: url, limit: policy.maxBytes))
        }
        bodyBytes += chunk.count
        if !streams { body.append(chunk) }
        rateWindow?.bytes += chunk.count
        var effects = TransferEffects<TaskRef>()
        if streams { effects.chunk = chunk }
        return effects
    }

    /// The running attempt is being redirected to `location` (nil: a URL that could not be read). Returns the
    /// effects and whether to follow: only to an `http(s)` URL not visited yet, at most ``FetchPolicy/maxRedirects``
    /// times.
    mutating func redirect(taskID: Int, to location: URL?, now: UInt64) -> (effects: TransferEffects<TaskRef>, follow: Bool) {
        guard case .running(_, taskID, _) = phase else { return (TransferEffects(), false) }
        lastActivity = now
        self.now = max(self.now, now)
        guard let location, ["http", "https"].contains(location.scheme?.lowercased() ?? "") else {
            let shown = location?.absoluteString ?? "an unreadable location"
            return (endAttempt(.redirectRefused(url: url, location: shown)), false)
        }
        let target = location.absoluteString
        if target == url || redirects.contains(target) || redirects.count >= policy.maxRedirects {
            return (endAttempt(.redirectLoop(url: url)), false)
        }
        redirects.append(target)
        return (TransferEffects(), true)
    }

    /// The task ended, with `error` if it failed.
    mutating func completed(taskID: Int, error: FetchError?, now: UInt64 = 0) -> TransferEffects<TaskRef> {
        guard case .running(_, taskID, _) = phase else { return TransferEffects() }
        self.now = max(self.now, now)
        if let error { return endAttempt(refined(error), cancelTask: false) }
        if let status, !(200...299).contains(status) {
            return endAttempt(.httpStatus(code: status, url: url), cancelTask: false)
        }
        if contentEncoding == nil, expectedLength > 0, Int64(bodyBytes) < expectedLength {
            return endAttempt(.shortBody(url: url, received: bodyBytes, expected: Int(expectedLength)), cancelTask: false)
        }
        if bodyBytes == 0 { return endAttempt(.emptyBody(url: url), cancelTask: false) }
        let data = body
        body = Data()
        bodyBytes = 0
        return finish(.success(data), stopping: nil)
    }

    /// What a failure URLSession reported means here: a connection that ended inside an announced body is a short
    /// body (URLSession reports an unknown error or a lost connection). An encoded body's bytes cannot be compared
    /// with its length here (they arrive decoded): the transport checked them, and any connection failure after an
    /// encoded response's head is a body that ended early or did not decode (libcurl's two errors look alike).
    private func refined(_ error: FetchError) -> FetchError {
        guard case .connection = error, status != nil else { return error }
        if let contentEncoding { return .encodedBodyFailed(url: url, encoding: contentEncoding) }
        guard expectedLength > 0, Int64(bodyBytes) < expectedLength else { return error }
        return .shortBody(url: url, received: bodyBytes, expected: Int(expectedLength))
    }

    /// The longest `Content-Encoding` value kept (a server's header can be any length).
    static var encodingNameLimit: Int { 40 }

    /// A `Content-Encoding` value as kept: lowercased, trimmed and cut to ``encodingNameLimit``; nil for none or
    /// `identity`.
    static func encoding(_ header: String?) -> String? {
        guard let header else { return nil }
        let value = header.trimmingCharacters(in: .whitespaces).lowercased()
        // The server's words end up in an error message: keep them to one short line (printing sanitises them).
        return value.isEmpty || value == "identity" ? nil : String(value.prefix(Self.encodingNameLimit))
    }

    /// The timer fired for task `taskID` at `now`: the overall deadline, the minimum rate and the idle timeout are
    /// checked, in that order.
    mutating func timerFired(taskID: Int, now: UInt64) -> TimerDecision {
        guard case .running(_, taskID, _) = phase else { return .none }
        timer = nil
        self.now = max(self.now, now)
        if let end = overallDeadline, now >= end {
            return .expired(finish(.failure(deadlineError), stopping: runningTask))
        }
        if let rate = policy.minimumRate, let window = rateWindow,
           now >= window.start.laneAdding(rate.window.laneNanoseconds) {
            if window.bytes < rate.bytesPerWindow {
                return .expired(endAttempt(.tooSlow(url: url, bytesPerSecond: rate.bytesPerSecond)))
            }
            rateWindow = (start: now, bytes: 0)
        }
        let due = deadline
        if now >= due { return .expired(endAttempt(.timedOut(url: url))) }
        return .rearm(due)
    }

    /// When the running attempt must next be checked: it times out then if nothing more arrives, and the rate window
    /// and the overall deadline end no later.
    var deadline: UInt64 {
        var due = lastActivity.laneAdding(policy.timeout.laneNanoseconds)
        if let limit = policy.retry.attemptTimeout { due = min(due, attemptStart.laneAdding(limit.laneNanoseconds)) }
        if let rate = policy.minimumRate, let window = rateWindow {
            due = min(due, window.start.laneAdding(rate.window.laneNanoseconds))
        }
        if let end = overallDeadline { due = min(due, end) }
        return due
    }

    /// When the whole fetch must have ended (nil: no limit, or not started).
    private var overallDeadline: UInt64? {
        guard let limit = policy.deadline, let fetchStart else { return nil }
        return fetchStart.laneAdding(limit.laneNanoseconds)
    }

    private var deadlineError: FetchError {
        .deadlineExceeded(url: url, seconds: Double((policy.deadline ?? .zero).laneNanoseconds) / 1e9)
    }

    /// Keeps the timer armed for task `taskID`. False if that attempt is over (the caller cancels the token).
    mutating func storeTimer(taskID: Int, _ token: ScheduledToken) -> Bool {
        guard case .running(_, taskID, _) = phase, timer == nil else { return false }
        timer = token
        return true
    }

    /// Keeps the scheduled retry of attempt `attempt`. False if the fetch ended meanwhile.
    mutating func storeRetry(attempt: Int, _ token: ScheduledToken) -> Bool {
        guard mayLaunch(attempt), retry == nil else { return false }
        retry = token
        return true
    }

    /// The caller cancelled: the fetch ends now with ``FetchError/cancelled``.
    mutating func cancel() -> TransferEffects<TaskRef> {
        guard !isFinished else { return TransferEffects() }
        return finish(.failure(.cancelled), stopping: runningTask)
    }

    /// The attempt failed with `error`: schedule the next one or end the fetch.
    private mutating func endAttempt(_ error: FetchError, cancelTask: Bool = true) -> TransferEffects<TaskRef> {
        guard case .running(let attempt, _, let task) = phase else { return TransferEffects() }
        guard policy.retries(after: error, attempt: attempt), !(streams && bodyBytes > 0) else {
            return finish(.failure(error), stopping: cancelTask ? task : nil)
        }
        var delay = policy.retry.delay(afterAttempt: attempt)
        if let retryAfter { delay = max(delay, min(retryAfter, policy.maxRetryAfter)) }
        if let end = overallDeadline, now.laneAdding(delay.laneNanoseconds) >= end {
            return finish(.failure(error), stopping: cancelTask ? task : nil)  // the retry could not start in time
        }
        var effects = TransferEffects<TaskRef>()
        if cancelTask { effects.cancelTask = task }
        if let timer { effects.tokens.append(timer) }
        timer = nil
        body = Data()
        bodyBytes = 0
        phase = .idle(next: attempt + 1)
        effects.retry = (attempt: attempt + 1, delay: delay, after: error)
        return effects
    }

    /// Ends the fetch with `result`, handing back the completion and everything to stop.
    private mutating func finish(_ result: Result<Data, FetchError>, stopping task: TaskRef?) -> TransferEffects<TaskRef> {
        var effects = TransferEffects<TaskRef>()
        effects.cancelTask = task
        if let completion { effects.completion = (completion, result) }
        effects.tokens = [timer, retry].compactMap { $0 }
        completion = nil
        timer = nil
        retry = nil
        body = Data()
        bodyBytes = 0
        phase = .finished
        return effects
    }
}

/// What a ``TransferState`` transition asks for, done after the lock is released, completion last.
struct TransferEffects<TaskRef: Sendable>: Sendable {
    /// The completion and the result to call it with (at most once per fetch).
    var completion: (TransferState<TaskRef>.Completion, Result<Data, FetchError>)?
    /// A task to cancel (it failed at our end, or the fetch was cancelled).
    var cancelTask: TaskRef?
    /// Timers and scheduled retries to cancel.
    var tokens: [ScheduledToken] = []
    /// Arm the timer of task `taskID` again, for this time (the old one is among `tokens`).
    var armTimer: (taskID: Int, at: UInt64)?
    /// Start attempt `attempt` after `delay` (attempt `attempt - 1` failed with `after`).
    var retry: (attempt: Int, delay: Duration, after: FetchError)?
    /// A chunk of the body to hand to a streaming fetch's consumer (before any completion of the same effects).
    var chunk: Data?

    /// Whether there is nothing to do.
    var isEmpty: Bool {
        completion == nil && cancelTask == nil && tokens.isEmpty && armTimer == nil && retry == nil && chunk == nil
    }
}
