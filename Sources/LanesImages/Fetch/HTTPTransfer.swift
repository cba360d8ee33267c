import Foundation
import Lanes
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One `http(s)://` fetch: its attempts as URLSession data tasks, the timeout timer of each, the backoff waits between
/// them, and the one completion. The decisions live in ``TransferState``; this class runs what they ask for.
final class HTTPTransfer: FetchHandle {
    let url: URL
    let urlString: String
    private let session: SessionOwner
    private let state: LockedValue<TransferState<URLSessionDataTask>>
    /// The priority asked for, passed on to each attempt's task (taken before `state` when both are).
    private let priority: LockedValue<WorkPriority>
    /// Hears each chunk of the body as it arrives (a streaming fetch), on the session's delivery queue.
    private let chunks: (@Sendable (Data) -> Void)?

    private var clock: any LaneClock { session.policy.clock }

    init(url: URL, priority: WorkPriority, session: SessionOwner, chunks: (@Sendable (Data) -> Void)? = nil,
         completion: @escaping @Sendable (Result<Data, FetchError>) -> Void) {
        self.url = url
        self.urlString = url.absoluteString
        self.session = session
        self.chunks = chunks
        self.state = LockedValue(TransferState(
            url: url.absoluteString, policy: session.policy, streams: chunks != nil, completion: completion))
        self.priority = LockedValue(priority)
    }

    func start() { launch(attempt: 1) }

    func cancel() {
        perform(state.withLock { $0.cancel() })
    }

    func setPriority(_ priority: WorkPriority) {
        self.priority.withLock { wanted in
            wanted = priority
            state.withLock { $0.runningTask }?.priority = priority.sessionTaskPriority
        }
    }

    /// The `URLSessionTask.priority` of the running attempt (nil between attempts and after the end).
    var taskPriority: Float? {
        state.withLock { $0.runningTask }?.priority
    }

    // MARK: Attempts

    private func launch(attempt: Int) {
        guard state.withLock({ $0.mayLaunch(attempt) }) else { return }
        var request = URLRequest(url: url)
        request.cachePolicy = .reloadIgnoringLocalCacheData
        // The policy's timer governs; URLSession's own idle timeout only backs it up (it would otherwise cut a longer
        // policy timeout short at its 60 s default).
        request.timeoutInterval = max(1, 2 * Double(session.policy.timeout.laneNanoseconds) / 1e9)
        let task = session.session.dataTask(with: request)
        let id = task.taskIdentifier
        session.router.register(self, taskID: id)
        let started = state.withLock { $0.begin(attempt: attempt, taskID: id, task: task, now: clock.now) }
        guard started else {
            task.cancel()  // cancelled meanwhile; the router forgets the task when URLSession reports its end
            return
        }
        priority.withLock { task.priority = $0.sessionTaskPriority }
        session.observer?(.attemptStarted(url: urlString, attempt: attempt))
        armTimer(taskID: id, at: state.withLock { $0.deadline })
        task.resume()
    }

    private func armTimer(taskID: Int, at deadline: UInt64) {
        let leeway = min(session.policy.timeout.laneNanoseconds / 20, 50_000_000)
        let token = clock.schedule(at: deadline, leeway: leeway) { [self] in timerFired(taskID: taskID) }
        if !state.withLock({ $0.storeTimer(taskID: taskID, token) }) { token.cancel() }
    }

    private func timerFired(taskID: Int) {
        switch state.withLock({ $0.timerFired(taskID: taskID, now: clock.now) }) {
        case .none: break
        case .rearm(let deadline): armTimer(taskID: taskID, at: deadline)
        case .expired(let effects): perform(effects)
        }
    }

    // MARK: Session callbacks (from the ``SessionRouter``)

    /// The response head arrived; false if the task is no longer wanted.
    func received(_ response: URLResponse, taskID: Int) -> Bool {
        let http = response as? HTTPURLResponse
        let retryAfter = (http?.value(forHTTPHeaderField: "Retry-After")).flatMap { RetryAfter.parse($0) }
        let encoding = http?.value(forHTTPHeaderField: "Content-Encoding")
        let effects = state.withLock {
            $0.response(taskID: taskID, status: http?.statusCode, expectedLength: response.expectedContentLength,
                        contentEncoding: encoding, retryAfter: retryAfter, now: clock.now)
        }
        let keep = effects.cancelTask == nil
        performLater(effects)
        session.observer?(.responseReceived(url: urlString, taskID: taskID))
        return keep
    }

    func received(_ data: Data, taskID: Int) {
        performLater(state.withLock { $0.received(taskID: taskID, data, now: clock.now) })
    }

    /// URLSession is about to follow a redirect to `location`: `reply` is told whether to (a refusal has ended the
    /// attempt). It is told before the task is cancelled: swift-corelibs-foundation traps on a redirect answer that
    /// reaches a task already cancelled.
    func redirecting(to location: URL?, taskID: Int, reply: (Bool) -> Void) {
        let (effects, follow) = state.withLock { $0.redirect(taskID: taskID, to: location, now: clock.now) }
        reply(follow)
        performLater(effects)
    }

    func completed(taskID: Int, error: (any Error)?) {
        let failure = error.map { FetchError.from(sessionError: $0, url: urlString) }
        performLater(state.withLock { $0.completed(taskID: taskID, error: failure, now: clock.now) })
    }

    // MARK: Effects

    /// Performs the effects of a session callback on the session's delivery queue. The callbacks may run on
    /// URLSession's own thread (see ``InlineDelegateQueue``), where cancelling a task or running a completion that
    /// starts another fetch would deadlock.
    /// Timers are stopped and armed at once (the clock never calls back inside `schedule`), so a test that sees the
    /// callback's event knows the timer is armed.
    private func performLater(_ effects: TransferEffects<URLSessionDataTask>) {
        var effects = effects
        for token in effects.tokens { token.cancel() }
        effects.tokens = []
        if let arm = effects.armTimer { armTimer(taskID: arm.taskID, at: arm.at) }
        effects.armTimer = nil
        guard !effects.isEmpty else { return }
        session.delivery.async { [self, effects] in perform(effects) }
    }

    /// Does what a transition asked for, outside the lock: stop timers and tasks, schedule a retry, complete last.
    private func perform(_ effects: TransferEffects<URLSessionDataTask>) {
        for token in effects.tokens { token.cancel() }
        effects.cancelTask?.cancel()
        if let arm = effects.armTimer { armTimer(taskID: arm.taskID, at: arm.at) }
        if let retry = effects.retry {
            let token = clock.schedule(at: clock.deadline(after: retry.delay), leeway: 0) { [self] in
                launch(attempt: retry.attempt)
            }
            session.observer?(
                .retryScheduled(url: urlString, attempt: retry.attempt, delay: retry.delay, after: retry.after))
            if !state.withLock({ $0.storeRetry(attempt: retry.attempt, token) }) { token.cancel() }
        }
        if let chunk = effects.chunk { chunks?(chunk) }
        if let (completion, result) = effects.completion { completion(result) }
    }
}
