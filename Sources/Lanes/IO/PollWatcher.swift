#if os(Linux) || os(Android)
import Foundation

/// A ``ReadinessWatch`` on Lanes' `poll(2)` thread.
final class PollReadWatch: ReadinessWatch {
    private let watcher: PollWatcher
    private let fileDescriptor: Int32
    /// Chosen before the descriptor is added, so a fire can never outrun it.
    private let id: UInt64

    init(watcher: PollWatcher, fileDescriptor: Int32) {
        self.watcher = watcher
        self.fileDescriptor = fileDescriptor
        id = watcher.makeID()
    }

    func start(_ fire: @escaping @Sendable (Int) -> Void) { watcher.add(id, fileDescriptor, fire) }
    func rearm() { watcher.rearm(id) }
    func stop(_ finished: @escaping @Sendable () -> Void) { watcher.remove(id, then: finished) }
}

/// One thread that polls every watched descriptor (and a wake-up pipe). A descriptor that becomes readable is taken
/// out of the set until it is re-armed; a removed descriptor's `then` runs on the poll thread only once no `poll`
/// call includes it, so the owner may close it at that point.
final class PollWatcher: Sendable {
    /// The process's watcher; nil only if its wake-up pipe could not be made (no descriptors left).
    static let shared = PollWatcher()

    private struct Watch: Sendable {
        let fileDescriptor: Int32
        var armed = true
        let fire: @Sendable (Int) -> Void
    }

    private struct State: Sendable {
        var watches: [UInt64: Watch] = [:]
        var lastID: UInt64 = 0
        var removed: [@Sendable () -> Void] = []
        var started = false
    }

    private let state = LockedValue(State())
    /// The wake-up pipe: (read end, write end), both non-blocking.
    private let wake: (Int32, Int32)

    private init?() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wake = (ends[0], ends[1])
    }

    func makeID() -> UInt64 {
        state.withLock { state in
            state.lastID += 1
            return state.lastID
        }
    }

    func add(_ id: UInt64, _ fileDescriptor: Int32, _ fire: @escaping @Sendable (Int) -> Void) {
        let start = state.withLock { state -> Bool in
            state.watches[id] = Watch(fileDescriptor: fileDescriptor, fire: fire)
            defer { state.started = true }
            return !state.started
        }
        if start {
            let thread = Thread { [self] in loop() }
            thread.name = "lanes-io-poll"
            thread.stackSize = 1 << 18
            thread.start()
        } else {
            poke()
        }
    }

    func rearm(_ id: UInt64) {
        let changed = state.withLock { state -> Bool in
            guard state.watches[id] != nil, state.watches[id]?.armed == false else { return false }
            state.watches[id]?.armed = true
            return true
        }
        if changed { poke() }
    }

    func remove(_ id: UInt64, then finished: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.watches.removeValue(forKey: id)
            state.removed.append(finished)
        }
        poke()
    }

    private func poke() {
        var byte: UInt8 = 1
        _ = write(wake.1, &byte, 1)  // a full pipe already holds a wake-up
    }

    private func loop() {
        while true {
            let (armed, removed) = state.withLock { state -> ([(UInt64, Int32)], [@Sendable () -> Void]) in
                defer { state.removed = [] }
                return (state.watches.filter(\.value.armed).map { ($0.key, $0.value.fileDescriptor) }, state.removed)
            }
            // Nothing polls the removed descriptors any more: their owners may close them.
            for finished in removed { finished() }
            var fds = [pollfd(fd: wake.0, events: Int16(POLLIN), revents: 0)]
            fds += armed.map { pollfd(fd: $0.1, events: Int16(POLLIN), revents: 0) }
            guard poll(&fds, nfds_t(fds.count), -1) > 0 else { continue }  // EINTR: look again
            if fds[0].revents != 0 { drainWake() }
            var fires: [(@Sendable (Int) -> Void, Int)] = []
            for (index, (id, descriptor)) in armed.enumerated() where fds[index + 1].revents != 0 {
                let estimate = Self.bytesAvailable(descriptor)
                let fire = state.withLock { state -> (@Sendable (Int) -> Void)? in
                    guard state.watches[id]?.armed == true else { return nil }
                    state.watches[id]?.armed = false
                    return state.watches[id]?.fire
                }
                if let fire { fires.append((fire, estimate)) }
            }
            for (fire, estimate) in fires { fire(estimate) }
        }
    }

    private func drainWake() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wake.0, &buffer, buffer.count) > 0 {}
    }

    private static func bytesAvailable(_ descriptor: Int32) -> Int {
        var count: Int32 = 0
        return ioctl(descriptor, UInt(FIONREAD), &count) == 0 ? Int(count) : 1
    }
}
#endif
