import Foundation

/// Why the disk cache could not open its directory or store an entry.
///
/// ```swift
/// do {
///     try cache.store(data, forKey: url.absoluteString)
/// } catch DiskCacheError.entryTooLarge(let size, let limit) {
///     print("not cached: \(size) bytes > \(limit)")
/// } catch {
///     print(error)   // e.g. "disk cache could not rename …: No space left on device"
/// }
/// ```
public enum DiskCacheError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The entry (header, key and payload) is bigger than the cache's whole size limit, so it was not stored (and
    /// any older entry for the key was removed).
    case entryTooLarge(size: Int, limit: Int)
    /// A file-system call failed; `code` is its `errno`.
    case fileSystem(operation: String, path: String, code: Int32)

    /// What went wrong, in words.
    ///
    /// ```swift
    /// print(DiskCacheError.entryTooLarge(size: 9_000, limit: 4_096))
    /// ```
    public var description: String {
        switch self {
        case .entryTooLarge(let size, let limit):
            "disk cache entry of \(size) bytes exceeds the cache's size limit of \(limit) bytes"
        case .fileSystem(let operation, let path, let code):
            "disk cache could not \(operation) \(path): \(String(cString: strerror(code)))"
        }
    }
}

/// Counters of what a ``DiskCache`` did since it was created.
///
/// ```swift
/// let stats = cache.statistics
/// print("hit rate \(Double(stats.hits) / Double(max(1, stats.hits + stats.misses)))")
/// ```
public struct DiskCacheStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Reads that returned data.
    public var hits = 0
    /// Reads that returned nil because no intact entry for the key was there (corrupt entries count separately).
    public var misses = 0
    /// Entries written.
    public var stores = 0
    /// Entries removed to stay under the size limit.
    public var evictions = 0
    /// Entries found corrupt or truncated on read, deleted and reported as absent.
    public var corruptDropped = 0

    /// All counters zero.
    ///
    /// ```swift
    /// var expected = DiskCacheStatistics()   // all zero
    /// expected.stores = 1
    /// ```
    public init() {}

    /// The counters on one line.
    ///
    /// ```swift
    /// print(cache.statistics)   // "hits 3, misses 1, stores 1, evictions 0, corrupt dropped 0"
    /// ```
    public var description: String {
        "hits \(hits), misses \(misses), stores \(stores), evictions \(evictions), corrupt dropped \(corruptDropped)"
    }
}
