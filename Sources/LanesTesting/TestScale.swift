import Foundation

/// How large heavy tests make their inputs: full size normally, smaller under ThreadSanitizer, which runs memory
/// accesses 5–15 times slower and would turn a one-second loop over a million items into minutes.
///
/// A test picks its size once, keeping what it asserts meaningful at both sizes (a leak of one item in a hundred
/// thousand is as much a leak as one in a million):
///
/// ```swift
/// let count = TestScale.pick(1_000_000, sanitized: 100_000)
/// ```
///
/// The environment variable `LANES_TEST_SCALE` overrides the detection: `full` or `sanitized`.
public enum TestScale {
    /// Whether this process runs the smaller sizes: it was built with `-sanitize=thread` (its runtime is linked in),
    /// or `LANES_TEST_SCALE=sanitized` says so.
    public static let isReduced: Bool = {
        switch ProcessInfo.processInfo.environment["LANES_TEST_SCALE"] {
        case "full": return false
        case "sanitized": return true
        default: return isThreadSanitized
        }
    }()

    /// `full` normally, `sanitized` in a ThreadSanitizer build (see ``isReduced``).
    public static func pick<Value>(_ full: Value, sanitized: Value) -> Value {
        isReduced ? sanitized : full
    }

    /// Whether ThreadSanitizer's runtime is in the process (its entry point is a symbol of the executable).
    private static let isThreadSanitized: Bool = {
        #if canImport(Darwin)
        let everyLoadedImage = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #else
        let everyLoadedImage: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #endif
        return dlsym(everyLoadedImage, "__tsan_init") != nil
    }()
}
