#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread-specific slot holding a UInt64 (0 means unset). Used for thread numbers.
final class ThreadLocalKey: Sendable {
    // pthread_key_t is a plain integer handle; it is written once in init and only read afterwards.
    private let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        self.key = key
    }

    var value: UInt64? {
        get {
            let raw = UInt(bitPattern: pthread_getspecific(key))
            return raw == 0 ? nil : UInt64(raw)
        }
        set {
            pthread_setspecific(key, UnsafeRawPointer(bitPattern: UInt(newValue ?? 0)))
        }
    }
}
