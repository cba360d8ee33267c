import Lanes

extension MemoryBudget {
    /// Waits (suspending, not blocking) until `bytes` fit, and returns the reservation.
    ///
    /// Cancelling the calling task withdraws the request and throws `CancellationError`; if the grant and the
    /// cancellation cross, the granted bytes are released at once and the call still throws.
    ///
    /// ```swift
    /// let reservation = try await budget.reserve(width * height * 4, priority: .visible)
    /// defer { reservation.release() }
    /// let bitmap = try decoder.decode(data)
    /// ```
    public func reserve(_ bytes: Int, priority: WorkPriority) async throws -> BudgetReservation {
        let waiter = AsyncBudgetWaiter()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard waiter.start(continuation) else {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                let request = reserve(bytes, priority: priority) { reservation in
                    if let continuation = waiter.finish() {
                        continuation.resume(returning: reservation)
                    } else {
                        reservation.release()
                    }
                }
                waiter.attach(request)
            }
        } onCancel: {
            waiter.cancel()
        }
    }
}

/// Connects one `async` reservation to its continuation and its request, whichever of grant and cancellation comes
/// first. Its state machine hands out the continuation exactly once.
private final class AsyncBudgetWaiter: Sendable {
    private enum Phase: Sendable {
        case idle
        case waiting(CheckedContinuation<BudgetReservation, any Error>, BudgetRequest?)
        case finished
        case cancelled
    }

    private let phase = LockedValue(Phase.idle)

    /// Stores the continuation; false when the task was cancelled first.
    func start(_ continuation: CheckedContinuation<BudgetReservation, any Error>) -> Bool {
        phase.withLock { phase in
            guard case .idle = phase else { return false }
            phase = .waiting(continuation, nil)
            return true
        }
    }

    /// Remembers the request so a cancellation can withdraw it; withdraws it now if the cancellation came first.
    func attach(_ request: BudgetRequest) {
        let cancelled = phase.withLock { phase -> Bool in
            switch phase {
            case .waiting(let continuation, nil):
                phase = .waiting(continuation, request)
                return false
            case .cancelled:
                return true
            default:
                return false
            }
        }
        if cancelled { request.cancel() }
    }

    /// The continuation to resume with the grant, or nil when the task was cancelled first.
    func finish() -> CheckedContinuation<BudgetReservation, any Error>? {
        phase.withLock { phase in
            guard case .waiting(let continuation, _) = phase else { return nil }
            phase = .finished
            return continuation
        }
    }

    /// Withdraws the request and throws `CancellationError` into the waiting task (if it is still waiting).
    func cancel() {
        let taken = phase.withLock { phase -> (CheckedContinuation<BudgetReservation, any Error>?, BudgetRequest?) in
            switch phase {
            case .idle:
                phase = .cancelled
                return (nil, nil)
            case .waiting(let continuation, let request):
                phase = .cancelled
                return (continuation, request)
            case .finished, .cancelled:
                return (nil, nil)
            }
        }
        taken.1?.cancel()
        taken.0?.resume(throwing: CancellationError())
    }
}
