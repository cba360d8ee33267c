import Lanes

/// One consumer's claim on a job of a ``SharedWork`` table: leave it, or change how urgent it is. The job is
/// cancelled when its last consumer leaves, and runs at the highest priority of those that stay.
///
/// ```swift
/// let (subscription, _) = table.subscribe(url, priority: .prefetch, deliver: show, start: startJob)
/// subscription.setPriority(.visible)
/// subscription.cancel()
/// ```
public struct SharedSubscription: Sendable {
    private let owner: (any SubscriptionOwner)?
    private let consumer: UInt64

    init(owner: (any SubscriptionOwner)?, consumer: UInt64) {
        self.owner = owner
        self.consumer = consumer
    }

    /// A subscription already answered (nothing to leave or steer).
    public static let finished = SharedSubscription(owner: nil, consumer: 0)

    /// Leaves the job: nothing more is delivered to this consumer. Safe to call more than once.
    ///
    /// ```swift
    /// subscription.cancel()
    /// ```
    public func cancel() { owner?.leave(consumer) }

    /// Changes this consumer's priority; the job follows if it is the most urgent.
    ///
    /// ```swift
    /// subscription.setPriority(.prefetch)
    /// ```
    public func setPriority(_ priority: WorkPriority) { owner?.setPriority(priority, of: consumer) }

    /// Whether the consumer still waits for a result that will come (not delivered, left or cancelled).
    public var isActive: Bool { owner?.isActive(consumer) ?? false }
}

/// What a subscription steers: its job.
protocol SubscriptionOwner: Sendable {
    func leave(_ consumer: UInt64)
    func setPriority(_ priority: WorkPriority, of consumer: UInt64)
    func isActive(_ consumer: UInt64) -> Bool
}
