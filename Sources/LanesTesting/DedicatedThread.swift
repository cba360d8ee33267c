import Foundation

/// Runs blocking code (waiting on a child process, polling a file, a long synchronous computation) on a thread of its
/// own and returns its result, so the test never holds one of Swift's cooperative threads while it blocks. On a
/// two-core machine the cooperative pool has two threads: two tests blocking them would stall every other test in the
/// process, which then trip their time limits. Keep `#expect` outside the closure (the thread has no current test).
///
/// ```swift
/// let status = try await onDedicatedThread {
///     try process.run()
///     process.waitUntilExit()
///     return process.terminationStatus
/// }
/// #expect(status == 0)
/// ```
public func onDedicatedThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// ``onDedicatedThread(_:)`` for a body that cannot throw.
public func onDedicatedThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
