import Dispatch

/// Watches one descriptor for readability for a ``ReadabilitySource``: it reports readiness once, then waits for
/// `rearm()`, so one delivery is in flight at a time.
protocol ReadinessWatch: Sendable {
    /// Starts watching; `fire` gets the number of bytes the system says are waiting (0 at end of file).
    func start(_ fire: @escaping @Sendable (_ estimatedBytes: Int) -> Void)
    /// Watches again after a delivery.
    func rearm()
    /// Stops watching; `finished` runs once the system no longer watches the descriptor (it may then be closed).
    func stop(_ finished: @escaping @Sendable () -> Void)
}

/// The watch for this platform: `DispatchSource.makeReadSource` where libdispatch uses kqueue; Lanes' `poll(2)`
/// thread on Linux, where libdispatch's epoll backend frees a read source's registration from the source's queue
/// after a hang-up while its manager thread may still use it (a crash when a pipe's writer closes).
func makeReadinessWatch(fileDescriptor: Int32) -> any ReadinessWatch {
    #if os(Linux) || os(Android)
    if let watcher = PollWatcher.shared { return PollReadWatch(watcher: watcher, fileDescriptor: fileDescriptor) }
    #endif
    return DispatchReadWatch(fileDescriptor: fileDescriptor)
}

/// A dispatch read source that suspends itself when it fires and resumes on `rearm()`. `@unchecked Sendable`:
/// dispatch sources are thread-safe, the reference never changes, and `flags` is lock-guarded.
final class DispatchReadWatch: ReadinessWatch, @unchecked Sendable {
    private struct Flags: Sendable {
        var suspended = false
        var stopped = false
    }

    private let source: any DispatchSourceRead
    private let flags = LockedValue(Flags())

    init(fileDescriptor: Int32) {
        let queue = DispatchQueue(label: "lanes.io.read", qos: .userInitiated)
        source = DispatchSource.makeReadSource(fileDescriptor: fileDescriptor, queue: queue)
    }

    func start(_ fire: @escaping @Sendable (Int) -> Void) {
        source.setEventHandler { [self] in
            let go = flags.withLock { flags -> Bool in
                guard !flags.stopped, !flags.suspended else { return false }
                flags.suspended = true
                return true
            }
            guard go else { return }
            source.suspend()
            fire(Int(clamping: source.data))
        }
        source.activate()
    }

    func rearm() {
        let resume = flags.withLock { flags -> Bool in
            guard flags.suspended, !flags.stopped else { return false }
            flags.suspended = false
            return true
        }
        if resume { source.resume() }
    }

    func stop(_ finished: @escaping @Sendable () -> Void) {
        source.setCancelHandler(handler: finished)
        source.cancel()
        // A suspended source never finishes cancelling; a released suspended source is a fatal error.
        let resume = flags.withLock { flags -> Bool in
            flags.stopped = true
            defer { flags.suspended = false }
            return flags.suspended
        }
        if resume { source.resume() }
        // The event handler refers to this watch; drop it once cancelled so the pair is released.
        source.setEventHandler(handler: nil)
    }
}
