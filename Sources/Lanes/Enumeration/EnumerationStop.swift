import Synchronization

/// Lets a concurrent enumeration's body ask for an early stop (Foundation's `*stop = YES`): elements not yet
/// started are skipped; bodies already running finish.
///
/// ```swift
/// try photos.concurrentForEach { photo, stop in
///     if photo.isCorrupt { stop.stop() }
///     else { index(photo) }
/// }
/// ```
public final class EnumerationStop: Sendable {
    @usableFromInline let flag = Atomic<Bool>(false)

    /// Creates a stop token; the enumeration functions make one for you.
    public init() {}

    /// Requests the stop. Safe from any thread, more than once.
    public func stop() { flag.store(true, ordering: .relaxed) }

    /// Whether a stop was requested (by a body, an error, or cancellation).
    @inlinable
    public var isStopped: Bool { flag.load(ordering: .relaxed) }
}
