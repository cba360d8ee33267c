import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Calls you on the ``WorkQueue`` you choose when the process receives one of `signals` (`SIGINT`, `SIGTERM`,
/// `SIGWINCH`…): ordinary code on an ordinary queue instead of a signal handler, where almost nothing is allowed.
/// Built on `DispatchSource.makeSignalSource`.
///
/// ```swift
/// let quit = SignalSource(signals: [SIGINT, SIGTERM], onMain: { signal in
///     document.saveAndQuit(status: 128 + signal)
/// })
/// ```
///
/// Creating the source sets each signal's disposition to "ignore" (so the default action, usually ending the
/// process, does not run first) and unblocks the signals in the creating thread (create it on the main thread: a
/// signal blocked in every thread never arrives); ``cancel()`` stops deliveries and leaves the signals ignored. Signals that arrive
/// together may be delivered once, as the kernel coalesces them.
public final class SignalSource: Sendable {
    /// A dispatch source; libdispatch objects may be used from any thread, and the array is only read after `init`.
    private struct Sources: @unchecked Sendable {
        let all: [any DispatchSourceSignal]
    }

    private let sources: Sources
    private let cancelled: LockedValue<Bool>
    /// Opens once libdispatch has registered every source.
    private let ready = Latch()
    /// The signals watched.
    public let signals: [Int32]

    /// Starts watching `signals`.
    /// - Parameters:
    ///   - signals: the signal numbers to watch (`SIGINT`, `SIGTERM`, `SIGWINCH`…).
    ///   - queue: where `handler` runs (nil: on a global dispatch queue).
    ///   - label: the label of delivery items.
    ///   - handler: gets the signal's number.
    public init(
        signals: [Int32], on queue: WorkQueue? = nil, label: String = "signal",
        _ handler: @escaping @Sendable (Int32) -> Void
    ) {
        self.signals = signals
        let cancelled = LockedValue(false)
        self.cancelled = cancelled
        // A parent may start the process with these signals blocked (SwiftPM's `swift test` does), and a signal
        // blocked in every thread never arrives: unblock them in the creating thread (an app's main thread).
        var mask = sigset_t()
        sigemptyset(&mask)
        for number in signals { sigaddset(&mask, number) }
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
        let (ready, count, registered) = (ready, signals.count, LockedValue(0))
        let sources = signals.map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global(qos: .userInitiated))
            source.setEventHandler {
                Delivery.run(on: queue, label: label) {
                    if !cancelled.withLock({ $0 }) { handler(number) }
                }
            }
            source.setRegistrationHandler {
                if registered.withLock({ $0 += 1; return $0 }) == count { ready.open() }
            }
            source.activate()
            return source
        }
        self.sources = Sources(all: sources)
        if signals.isEmpty { ready.open() }
    }

    /// Runs `handler` once libdispatch watches every signal (at once if it already does). Watching starts
    /// asynchronously: a signal sent before then meets the "ignore" disposition and is lost.
    ///
    /// ```swift
    /// signals.onReady { print("ready for SIGTERM") }
    /// ```
    public func onReady(_ handler: @escaping @Sendable () -> Void) {
        ready.whenOpen(handler)
    }

    deinit { cancel() }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { cancelled.withLock { $0 } }

    /// Stops deliveries, including one already handed to the queue. The signals stay ignored. Safe to call more than
    /// once, from any thread.
    public func cancel() {
        let first = cancelled.withLock { cancelled -> Bool in
            defer { cancelled = true }
            return !cancelled
        }
        guard first else { return }
        for source in sources.all { source.cancel() }
    }
}

extension SignalSource {
    /// Watches `signals` and calls a main-actor `handler` on the main queue.
    ///
    /// ```swift
    /// @MainActor final class Screen { var size = (80, 24) }
    /// let screen = Screen()
    /// let resize = SignalSource(signals: [SIGWINCH], onMain: { _ in screen.size = (100, 30) })
    /// resize.cancel()
    /// ```
    public convenience init(
        signals: [Int32], label: String = "signal", onMain handler: @escaping @MainActor (Int32) -> Void
    ) {
        self.init(signals: signals, on: .main, label: label, onMainActor(handler))
    }
}
