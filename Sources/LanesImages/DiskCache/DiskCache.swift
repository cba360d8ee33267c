import Foundation
import Lanes

/// A size-limited, crash-safe cache of data on disk, for fetched image bytes, keyed by any string (usually a URL).
///
/// - **Files.** Each entry is one file named after a 128-bit hash of its key (plus a generation number, see below).
///   The file starts with a header holding the full key and checksums of itself and of the payload.
/// - **Atomic writes.** `store` writes a temporary file in the same directory (optionally `fsync`ed) and `rename(2)`s
///   it into place, so a reader or a crash sees the old entry or the whole new one, never half of one.
/// - **Checked reads.** A file whose size, header or payload checksum is wrong (corrupt or truncated) is deleted and
///   reported as absent, never served. A file written for another key whose hash collides is a miss.
/// - **Least-recently-used eviction.** After each store the least recently used entries are deleted until the total
///   size is under ``sizeLimit``. Reads and stores stamp the file's modification time, so the order survives a
///   restart; a new instance on the same directory rebuilds its index from the files (sizes and modification times,
///   without reading them).
/// - **Startup.** Temporary files left by a crash are deleted; of two versions of an entry (a crash between a rename
///   and the deletion of the version it replaced) the newer is kept. Files with names the cache never uses are left
///   alone (the directory may be shared), and do not count towards the size.
/// - **Threads.** All methods are thread-safe. The index is a lock-guarded state machine; reading, writing and
///   deleting files happen outside the lock. Every version of an entry has its own file (`<hash>-<generation>`), so
///   replacing or evicting an entry never races a reader or a newer write of the same key.
///
/// One instance per directory: two caches (or processes) writing the same directory would delete each other's
/// temporary files at startup and keep separate indexes.
///
/// ```swift
/// let cache = try DiskCache(directory: cachesURL.appending(path: "images"), sizeLimit: 200 << 20)
/// if let data = cache.data(forKey: url.absoluteString) {
///     show(data)
/// } else {
///     let data = try await download(url)
///     try? cache.store(data, forKey: url.absoluteString)
/// }
/// ```
public final class DiskCache: Sendable {
    /// The directory holding the entries.
    ///
    /// ```swift
    /// print(cache.directory.path)
    /// ```
    public let directory: URL

    /// The most bytes the entry files may add up to (headers included).
    ///
    /// ```swift
    /// let free = cache.sizeLimit - cache.totalSize
    /// ```
    public let sizeLimit: Int

    /// Whether stores `fsync` each file and the directory before returning (durable across power loss, slower).
    let synchronizesWrites: Bool

    private let path: String
    private let index: LockedValue<DiskCacheIndex>

    /// Opens (creating if needed) the cache in `directory` and rebuilds its index from the files there.
    ///
    /// - Parameters:
    ///   - directory: where entries live; created with its parents if missing.
    ///   - sizeLimit: the most bytes of entry files to keep (negative counts as 0). If the files found exceed it, the
    ///     least recently used are deleted now.
    ///   - synchronizesWrites: `fsync` every stored file and the directory (off by default: a crash may then lose
    ///     recent entries, but never leaves a torn one that could be served).
    /// - Throws: ``DiskCacheError/fileSystem(operation:path:code:)`` when the directory cannot be created or listed.
    ///
    /// ```swift
    /// let cache = try DiskCache(directory: URL(filePath: "/var/cache/app/images"), sizeLimit: 500 << 20)
    /// let durable = try DiskCache(directory: dir, sizeLimit: 1 << 30, synchronizesWrites: true)
    /// ```
    public init(directory: URL, sizeLimit: Int, synchronizesWrites: Bool = false) throws {
        self.directory = directory
        self.sizeLimit = max(0, sizeLimit)
        self.synchronizesWrites = synchronizesWrites
        path = directory.standardizedFileURL.path
        try DiskCacheFiles.createDirectory(path)
        let (rebuilt, remove) = DiskCacheIndex.rebuild(sizeLimit: self.sizeLimit, from: try DiskCacheFiles.list(path))
        index = LockedValue(rebuilt)
        for file in remove { DiskCacheFiles.remove(path + "/" + file) }
    }

    /// The data stored for `key`, checked against its checksums and marked most recently used; nil when there is none.
    ///
    /// A corrupt or truncated entry is deleted, counted in ``DiskCacheStatistics/corruptDropped`` and reported as nil.
    ///
    /// ```swift
    /// if let png = cache.data(forKey: "https://example.com/a.png") { show(try decoder.decode(png)) }
    /// ```
    public func data(forKey key: String) -> Data? {
        let name = StripeHash.name(forKey: key)
        guard var (file, generation) = index.withLock({ $0.beginRead(name) }) else { return nil }
        let keyBytes = Array(key.utf8)
        for _ in 0..<4 {
            let outcome = DiskCacheFiles.readEntry(at: path + "/" + file, key: keyBytes)
            let now = DiskCacheFiles.now()
            let resolution = index.withLock {
                $0.finishRead(name, key: key, generation: generation, found: outcome.kind, now: now)
            }
            switch resolution {
            case .serve(let touch):
                if let touch { DiskCacheFiles.setModified(path + "/" + touch.file, to: touch.stamp) }
                if case .payload(let data) = outcome { return data }
                return nil
            case .miss:
                return nil
            case .drop(let corrupt):
                DiskCacheFiles.remove(path + "/" + corrupt)
                return nil
            case .retry(let newer, let newerGeneration):
                (file, generation) = (newer, newerGeneration)
            }
        }
        index.withLock { $0.recordMiss() }
        return nil
    }

    /// Stores `data` for `key`, replacing any older entry, then evicts least recently used entries over the limit.
    ///
    /// The bytes go to a temporary file that is renamed into place, so readers never see a partial entry.
    /// - Throws: ``DiskCacheError/entryTooLarge(size:limit:)`` when the entry alone exceeds ``sizeLimit`` (nothing is
    ///   stored and an older entry for the key is removed); ``DiskCacheError/fileSystem(operation:path:code:)`` when
    ///   writing or renaming fails (nothing is stored; the older entry stays).
    ///
    /// ```swift
    /// try cache.store(responseBody, forKey: request.url.absoluteString)
    /// ```
    public func store(_ data: Data, forKey key: String) throws {
        let name = StripeHash.name(forKey: key)
        let header = DiskCacheEntryFormat.header(key: Array(key.utf8), payload: data)
        let size = header.count + data.count
        guard size <= sizeLimit else {
            removeData(forKey: key)
            throw DiskCacheError.entryTooLarge(size: size, limit: sizeLimit)
        }
        let now = DiskCacheFiles.now()
        let (generation, stamp) = index.withLock { $0.beginWrite(now: now) }
        let temporary = path + "/" + DiskCacheIndex.temporaryName(name, generation)
        do {
            try DiskCacheFiles.writeNewFile(at: temporary, header: header, payload: data, modified: stamp,
                                            sync: synchronizesWrites)
            try DiskCacheFiles.rename(temporary, to: path + "/" + DiskCacheIndex.fileName(name, generation))
        } catch {
            DiskCacheFiles.remove(temporary)
            throw error
        }
        if synchronizesWrites { DiskCacheFiles.syncDirectory(path) }
        let remove = index.withLock { $0.commit(name, key: key, generation: generation, size: size, stamp: stamp) }
        for file in remove { DiskCacheFiles.remove(path + "/" + file) }
    }

    /// Deletes the entry for `key`, if any.
    ///
    /// ```swift
    /// cache.removeData(forKey: url.absoluteString)   // the server said the image changed
    /// ```
    public func removeData(forKey key: String) {
        let name = StripeHash.name(forKey: key)
        if let file = index.withLock({ $0.remove(name) }) { DiskCacheFiles.remove(path + "/" + file) }
    }

    /// Deletes every entry (files with names the cache does not use stay).
    ///
    /// ```swift
    /// cache.removeAll()
    /// assert(cache.count == 0)
    /// ```
    public func removeAll() {
        for file in index.withLock({ $0.removeAll() }) { DiskCacheFiles.remove(path + "/" + file) }
    }

    /// Whether an entry for `key` is indexed, without reading or touching it. A later ``data(forKey:)`` may still
    /// return nil if the file turns out corrupt, was deleted behind the cache's back, or (for entries found at startup)
    /// belongs to another key with the same hash.
    ///
    /// ```swift
    /// let missing = urls.filter { !cache.contains($0.absoluteString) }
    /// ```
    public func contains(_ key: String) -> Bool {
        let name = StripeHash.name(forKey: key)
        return index.withLock { $0.contains(name, key: key) }
    }

    /// The file currently holding the entry for `key` (header, key and payload), or nil; for tools and tests.
    ///
    /// ```swift
    /// if let file = cache.fileURL(forKey: key) { print(file.path) }
    /// ```
    public func fileURL(forKey key: String) -> URL? {
        let name = StripeHash.name(forKey: key)
        return index.withLock { $0.file(for: name) }.map { URL(fileURLWithPath: path + "/" + $0) }
    }

    /// The bytes of all entry files (headers included), as the index counts them.
    ///
    /// ```swift
    /// print("\(cache.totalSize >> 20) MiB of \(cache.sizeLimit >> 20)")
    /// ```
    public var totalSize: Int { index.withLock { $0.totalSize } }

    /// The number of entries.
    ///
    /// ```swift
    /// print("\(cache.count) images on disk")
    /// ```
    public var count: Int { index.withLock { $0.count } }

    /// Hits, misses, stores, evictions and corrupt entries dropped since this instance was created.
    ///
    /// ```swift
    /// print(cache.statistics)   // "hits 12, misses 3, stores 3, evictions 0, corrupt dropped 0"
    /// ```
    public var statistics: DiskCacheStatistics { index.withLock { $0.statistics } }
}

extension DiskCacheFiles.ReadOutcome {
    var kind: DiskCacheIndex.ReadKind {
        switch self {
        case .payload: .intact
        case .corrupt: .corrupt
        case .keyMismatch: .keyMismatch
        case .missing: .missing
        case .failed: .failed
        }
    }
}
