import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Calls you when a file descriptor has data to read (standard input, a socket, a pipe), on the ``WorkQueue`` you
/// choose, without a thread blocked in `read`. Built on `DispatchSource.makeReadSource`; on Linux, on a `poll(2)`
/// thread of Lanes' own (libdispatch's epoll backend can crash when a watched pipe's writer closes).
///
/// ```swift
/// let input = ReadabilitySource(fileDescriptor: STDIN_FILENO, on: commands) { readable in
///     if case .bytes(let bytes) = readable.read() { handle(bytes) }
/// }
/// ```
///
/// One delivery is in flight at a time: the descriptor is not watched again until the handler has returned, so a
/// busy queue is never flooded, and the handler is called again while data remains. Read with
/// ``Readable/read(maxBytes:)``: at end of file (the writer closed its end) or on a read error, the source cancels
/// itself once the handler returns. The source does not close the descriptor unless `closeOnCancel` is true; then it
/// closes it once the descriptor is no longer watched (see ``onCancelled(_:)``).
public final class ReadabilitySource: Sendable {
    private struct State: Sendable {
        var cancelled = false
        /// The handler read end of file or hit a read error: nothing more will come.
        var finished = false
    }

    private let watch: any ReadinessWatch
    private let state = LockedValue(State())
    /// Opens once the watch has stopped.
    private let stopped = Latch()
    private let queue: WorkQueue?
    private let label: String
    private let closeOnCancel: Bool
    private let handler: @Sendable (Readable) -> Void
    /// The descriptor watched.
    public let fileDescriptor: Int32

    /// Starts watching `fileDescriptor`.
    /// - Parameters:
    ///   - fileDescriptor: the descriptor to watch.
    ///   - queue: where `handler` runs (nil: on a global dispatch queue).
    ///   - label: the label of delivery items.
    ///   - closeOnCancel: close the descriptor once the source is cancelled and no longer watches it.
    ///   - handler: called each time the descriptor becomes readable.
    public init(
        fileDescriptor: Int32, on queue: WorkQueue? = nil, label: String = "readable", closeOnCancel: Bool = false,
        _ handler: @escaping @Sendable (Readable) -> Void
    ) {
        self.fileDescriptor = fileDescriptor
        self.queue = queue
        self.label = label
        self.closeOnCancel = closeOnCancel
        self.handler = handler
        watch = makeReadinessWatch(fileDescriptor: fileDescriptor)
        watch.start { [weak self] estimate in self?.fire(estimatedBytes: estimate) }
    }

    deinit { cancel() }

    /// Whether the source was cancelled (by ``cancel()``, or by itself at end of file).
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Stops watching. No handler starts afterwards. Safe to call more than once, from any thread, including from
    /// the handler.
    public func cancel() {
        let first = state.withLock { state -> Bool in
            defer { state.cancelled = true }
            return !state.cancelled
        }
        guard first else { return }
        let (descriptor, close, stopped) = (fileDescriptor, closeOnCancel, stopped)
        watch.stop {
            if close { _ = closeDescriptor(descriptor) }
            stopped.open()
        }
    }

    /// Runs `handler` once the source is cancelled and the descriptor no longer watched (at once if so already):
    /// from then on it is safe to close the descriptor yourself.
    ///
    /// ```swift
    /// source.cancel()
    /// source.onCancelled { close(descriptor) }
    /// ```
    public func onCancelled(_ handler: @escaping @Sendable () -> Void) {
        stopped.whenOpen(handler)
    }

    /// The descriptor is readable: deliver, then watch again (or stop at end of file).
    private func fire(estimatedBytes: Int) {
        guard !isCancelled else { return }
        let readable = Readable(source: self, estimatedBytes: estimatedBytes)
        let run: @Sendable () -> Void = { [self] in
            if !isCancelled { handler(readable) }
        }
        let settled: @Sendable () -> Void = { [self] in
            if state.withLock({ $0.finished }) { cancel() } else { watch.rearm() }
        }
        if let queue {
            Delivery.run(on: queue, label: label, run, settled: settled)
        } else {
            DispatchQueue.global(qos: .userInitiated).async {
                run()
                settled()
            }
        }
    }

    fileprivate func noteRead(_ outcome: ReadOutcome) {
        switch outcome {
        case .endOfFile, .failed: state.withLock { $0.finished = true }
        case .bytes, .wouldBlock: break
        }
    }

    /// What the handler gets: the descriptor, an estimate of the bytes waiting, and a way to read them.
    public struct Readable: Sendable {
        /// The source that fired.
        public let source: ReadabilitySource
        /// The bytes the system reported as available when the source fired (0 at end of file).
        public let estimatedBytes: Int

        /// The descriptor to read.
        public var fileDescriptor: Int32 { source.fileDescriptor }

        /// Reads up to `maxBytes` (by default the estimate, at least 64 KiB) with one `read` call.
        ///
        /// ```swift
        /// func append(_ readable: ReadabilitySource.Readable, to buffer: inout [UInt8]) {
        ///     if case .bytes(let chunk) = readable.read() { buffer.append(contentsOf: chunk) }
        /// }
        /// ```
        public func read(maxBytes: Int? = nil) -> ReadOutcome {
            let count = max(1, maxBytes ?? max(estimatedBytes, 64 * 1024))
            var buffer = [UInt8](repeating: 0, count: count)
            let result = buffer.withUnsafeMutableBytes { raw in
                systemRead(fileDescriptor, raw.baseAddress, count)
            }
            let outcome: ReadOutcome
            if result > 0 {
                outcome = .bytes(Array(buffer[0..<result]))
            } else if result == 0 {
                outcome = .endOfFile
            } else {
                let code = errno
                outcome = code == EAGAIN || code == EWOULDBLOCK || code == EINTR ? .wouldBlock : .failed(errno: code)
            }
            source.noteRead(outcome)
            return outcome
        }
    }
}

/// What one read from a ``ReadabilitySource`` got.
public enum ReadOutcome: Sendable, Equatable {
    /// Some bytes.
    case bytes([UInt8])
    /// The writer closed its end; nothing more will come.
    case endOfFile
    /// Nothing to read right now (a non-blocking descriptor raced another reader).
    case wouldBlock
    /// The read failed with this `errno`.
    case failed(errno: Int32)
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.read(descriptor, buffer, count)
    #elseif canImport(Musl)
    return Musl.read(descriptor, buffer, count)
    #else
    return Darwin.read(descriptor, buffer, count)
    #endif
}

private func closeDescriptor(_ descriptor: Int32) -> Int32 {
    #if canImport(Glibc)
    return Glibc.close(descriptor)
    #elseif canImport(Musl)
    return Musl.close(descriptor)
    #else
    return Darwin.close(descriptor)
    #endif
}
