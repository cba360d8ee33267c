#if LANES_PTHREAD_LOCKS
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#else
import Synchronization
#endif

// Lanes' locks. Release builds use `Synchronization.Mutex`, stored inline (no allocation, futex-based on Linux).
// ThreadSanitizer cannot see Mutex on Linux (its lock and unlock happen inside the uninstrumented runtime), so it
// reports every correctly locked access as a race. `scripts/test` therefore builds the sanitizer run with
// `-DLANES_PTHREAD_LOCKS`, which swaps in a pthread mutex with the same semantics that the sanitizer understands.
// Only the lock primitive changes; every critical section is the same code in both builds.

/// A value guarded by a lock, stored inline in its owner (`let state: Lock<State>` in a final class).
///
/// `withLock` is inlinable, as is `LockedValue`'s: LanesLists' cache is locked through it from the image pipeline and
/// the apps, whose calls then specialise instead of looking up generic metadata at run time.
@usableFromInline package struct Lock<Value: Sendable>: ~Copyable, Sendable {
    #if LANES_PTHREAD_LOCKS
    @usableFromInline let box: PthreadBox<Value>
    package init(_ value: consuming Value) { box = PthreadBox(value) }
    #else
    @usableFromInline let mutex: Mutex<Value>
    package init(_ value: consuming Value) { mutex = Mutex(value) }
    #endif

    /// Runs `body` with exclusive access to the value. Never call user code, resume continuations or await inside.
    @inlinable @inline(__always)
    package borrowing func withLock<Result: Sendable>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        #if LANES_PTHREAD_LOCKS
        return try box.withLock(body)
        #elseif LANES_LOCK_STATS
        return try LockStats.withLock(mutex, body)
        #else
        return try mutex.withLock { value in try body(&value) }
        #endif
    }

    /// Like `withLock`, and tells `body` whether another thread held the lock when this one asked for it (a free lock
    /// costs what `withLock` costs; a held one one failed try more).
    @inlinable @inline(__always)
    package borrowing func withLockNotingContention<Result: Sendable>(
        _ body: (inout Value, _ contended: Bool) -> Result
    ) -> Result {
        #if LANES_PTHREAD_LOCKS
        return box.withLockNotingContention(body)
        #else
        if let result = mutex.withLockIfAvailable({ value in body(&value, false) }) { return result }
        #if LANES_LOCK_STATS
        return LockStats.withLock(mutex) { value in body(&value, true) }
        #else
        return mutex.withLock { value in body(&value, true) }
        #endif
        #endif
    }
}

/// A reference-type lock box, for state shared by several objects or captured in closures.
@usableFromInline package final class LockedValue<Value: Sendable>: Sendable {
    @usableFromInline let lock: Lock<Value>

    package init(_ value: Value) { lock = Lock(value) }

    /// Runs `body` with exclusive access to the value. Never call user code, resume continuations or await inside.
    @inlinable @inline(__always)
    package func withLock<Result: Sendable>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock(body)
    }
}

#if LANES_PTHREAD_LOCKS
/// A pthread mutex and the value it guards (sanitizer builds only).
@usableFromInline final class PthreadBox<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only read or written between pthread_mutex_lock and pthread_mutex_unlock on
    // `mutex`, which is allocated once and never moves.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    @inlinable @inline(__always)
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    @inlinable @inline(__always)
    func withLockNotingContention<Result>(_ body: (inout Value, Bool) -> Result) -> Result {
        let contended = pthread_mutex_trylock(mutex) != 0
        if contended { pthread_mutex_lock(mutex) }
        defer { pthread_mutex_unlock(mutex) }
        return body(&value, contended)
    }
}
#endif
