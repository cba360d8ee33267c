import LanesLists

/// The in-memory index of a ``DiskCache``: which entries exist, their sizes and their recency, as a state machine.
/// The recency list is LanesLists' `LRUStorage` (by key hash, each entry costing its size), as in the memory cache.
///
/// Each method runs under the cache's lock and returns what the caller must then do on disk (read this file, delete
/// those), so no file I/O happens under the lock. Every version of an entry has its own file name,
/// `<32 hex digits of the key's hash>-<16 hex digits of a generation>`, so a file, once renamed into place, never
/// changes: deleting a superseded or evicted version outside the lock cannot hit a newer write, and a reader that
/// opened a version keeps reading that whole version.
struct DiskCacheIndex: Sendable {
    /// A deletion or time stamp the caller applies after unlocking.
    struct Touch: Sendable, Equatable {
        var file: String
        var stamp: UInt64
    }

    /// What a finished read means.
    enum ReadResolution: Sendable, Equatable {
        /// Serve the data; stamp the file's modification time when `touch` is set.
        case serve(touch: Touch?)
        /// Report a miss.
        case miss
        /// Delete the corrupt file and report a miss.
        case drop(file: String)
        /// The entry was replaced while it was read: read this newer version.
        case retry(file: String, generation: UInt64)
    }

    /// What reading a file found, without the data.
    enum ReadKind: Sendable {
        case intact, corrupt, keyMismatch, missing, failed
    }

    private struct Entry: Sendable {
        var name: String
        var generation: UInt64
        var size: Int
        var stamp: UInt64
        /// The key, once this process has stored or read the entry (nil for entries found at startup).
        var key: String?

        var file: String { DiskCacheIndex.fileName(name, generation) }
    }

    let sizeLimit: Int
    var statistics = DiskCacheStatistics()
    /// The entries by key hash, most recently used first.
    private var entries = LRUStorage<String, Entry>()
    private var nextGeneration: UInt64 = 1
    private var lastStamp: UInt64 = 0

    var count: Int { entries.count }
    var totalSize: Int { entries.totalCost }

    init(sizeLimit: Int) { self.sizeLimit = sizeLimit }

    // MARK: File names

    static func fileName(_ name: String, _ generation: UInt64) -> String { name + "-" + StripeHash.hex(generation) }

    static func temporaryName(_ name: String, _ generation: UInt64) -> String { fileName(name, generation) + ".tmp" }

    /// The key hash and generation of an entry file name; nil for any other name.
    static func parse(fileName file: String) -> (name: String, generation: UInt64)? {
        let utf8 = Array(file.utf8)
        guard utf8.count == 49, utf8[32] == UInt8(ascii: "-") else { return nil }
        let isHex = { (c: UInt8) in (c >= 48 && c <= 57) || (c >= 97 && c <= 102) }
        guard utf8[0..<32].allSatisfy(isHex), utf8[33...].allSatisfy(isHex),
              let generation = UInt64(String(decoding: utf8[33...], as: UTF8.self), radix: 16)
        else { return nil }
        return (String(decoding: utf8[0..<32], as: UTF8.self), generation)
    }

    // MARK: Startup

    /// Builds the index from what is in the directory, oldest modification time first. Returns the index and the files
    /// to delete: temporaries left by a crash, versions superseded by a newer one, and entries over the size limit.
    /// Files with other names are left alone.
    static func rebuild(sizeLimit: Int, from listing: [DiskCacheFiles.Listing]) -> (index: DiskCacheIndex, remove: [String]) {
        var index = DiskCacheIndex(sizeLimit: sizeLimit)
        var remove: [String] = []
        var latest: [String: (generation: UInt64, file: DiskCacheFiles.Listing)] = [:]
        for file in listing where file.isRegular {
            if file.name.hasSuffix(".tmp") {
                if parse(fileName: String(file.name.dropLast(4))) != nil { remove.append(file.name) }
                continue
            }
            guard let (name, generation) = parse(fileName: file.name) else { continue }
            index.nextGeneration = max(index.nextGeneration, generation &+ 1)
            if let known = latest[name] {
                let older = known.generation < generation ? known.file : file
                remove.append(older.name)
                if known.generation > generation { continue }
            }
            latest[name] = (generation, file)
        }
        let ordered = latest.sorted { a, b in
            (a.value.file.modified, a.value.generation) < (b.value.file.modified, b.value.generation)
        }
        for (name, found) in ordered {
            index.insertNewest(Entry(name: name, generation: found.generation, size: found.file.size,
                                     stamp: found.file.modified))
            index.lastStamp = max(index.lastStamp, found.file.modified)
        }
        remove += index.evictOverLimit(keeping: nil)
        return (index, remove)
    }

    // MARK: Reads

    /// The file to read for `name`, or nil (a miss, counted).
    mutating func beginRead(_ name: String) -> (file: String, generation: UInt64)? {
        guard let entry = entries.peek(name) else {
            statistics.misses += 1
            return nil
        }
        return (entry.file, entry.generation)
    }

    /// Records what reading version `generation` of `name` found, and says what to do next.
    mutating func finishRead(_ name: String, key: String, generation: UInt64, found: ReadKind, now: UInt64) -> ReadResolution {
        let current = entries.peek(name)
        switch found {
        case .intact:
            statistics.hits += 1
            guard var entry = current, entry.generation == generation else { return .serve(touch: nil) }
            entry.stamp = nextStamp(now)
            entry.key = key
            _ = entries.insert(entry, forKey: name, cost: entry.size)   // also the most recently used now
            return .serve(touch: Touch(file: entry.file, stamp: entry.stamp))
        case .corrupt:
            statistics.corruptDropped += 1
            if current?.generation == generation { _ = entries.removeValue(forKey: name) }
            return .drop(file: Self.fileName(name, generation))
        case .missing:
            if let current, current.generation != generation {
                return .retry(file: current.file, generation: current.generation)
            }
            if current?.generation == generation { _ = entries.removeValue(forKey: name) }
            statistics.misses += 1
            return .miss
        case .keyMismatch, .failed:
            statistics.misses += 1
            return .miss
        }
    }

    /// Counts a miss decided outside the index (a read that kept losing races with writers).
    mutating func recordMiss() { statistics.misses += 1 }

    // MARK: Writes

    /// A fresh generation for a new version of an entry, and the time stamp to give its file.
    mutating func beginWrite(now: UInt64) -> (generation: UInt64, stamp: UInt64) {
        let generation = nextGeneration
        nextGeneration &+= 1
        return (generation, nextStamp(now))
    }

    /// Makes version `generation` of `name` (already renamed into place) the current one, then evicts the least
    /// recently used entries until the total fits the limit. Returns the files to delete: the replaced version (or this
    /// one, if a newer version was committed first) and the evicted entries.
    mutating func commit(_ name: String, key: String, generation: UInt64, size: Int, stamp: UInt64) -> [String] {
        statistics.stores += 1
        var remove: [String] = []
        if let existing = entries.peek(name) {
            if existing.generation > generation { return [Self.fileName(name, generation)] }
            remove.append(existing.file)
        }
        insertNewest(Entry(name: name, generation: generation, size: size, stamp: stamp, key: key))
        return remove + evictOverLimit(keeping: name)
    }

    /// Forgets `name`; the file to delete, if it was there.
    mutating func remove(_ name: String) -> String? {
        entries.removeValue(forKey: name)?.file
    }

    /// Forgets every entry; the files to delete.
    mutating func removeAll() -> [String] {
        let files = entries.removeAll().map(\.file)
        let limit = sizeLimit
        let statistics = self.statistics
        let generation = nextGeneration
        let stamp = lastStamp
        self = DiskCacheIndex(sizeLimit: limit)
        self.statistics = statistics
        nextGeneration = generation
        lastStamp = stamp
        return files
    }

    // MARK: Queries

    /// Whether an entry is indexed under `name` and, if this process knows its key, for `key`.
    func contains(_ name: String, key: String) -> Bool {
        guard let entry = entries.peek(name) else { return false }
        return entry.key == nil || entry.key == key
    }

    /// The current file of `name`.
    func file(for name: String) -> String? {
        entries.peek(name)?.file
    }

    // MARK: Recency list

    private mutating func nextStamp(_ now: UInt64) -> UInt64 {
        lastStamp = max(now, lastStamp &+ 1)
        return lastStamp
    }

    /// Stores `entry` as the most recently used (replacing any version of its name).
    private mutating func insertNewest(_ entry: Entry) {
        _ = entries.insert(entry, forKey: entry.name, cost: entry.size)
    }

    /// Evicts the least recently used entries (never `kept`) until the total fits the limit; their files.
    private mutating func evictOverLimit(keeping kept: String?) -> [String] {
        var remove: [String] = []
        while entries.totalCost > sizeLimit, let oldest = entries.oldestKey, oldest != kept,
            let entry = entries.removeValue(forKey: oldest)
        {
            statistics.evictions += 1
            remove.append(entry.file)
        }
        return remove
    }
}
