/// The in-memory index of a ``DiskCache``: which entries exist, their sizes and their recency, as a state machine.
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
        var newer = -1
        var older = -1
    }

    let sizeLimit: Int
    private(set) var totalSize = 0
    var statistics = DiskCacheStatistics()
    private var slots: [Entry?] = []
    private var free: [Int] = []
    private var positions: [String: Int] = [:]
    private var oldest = -1
    private var newest = -1
    private var nextGeneration: UInt64 = 1
    private var lastStamp: UInt64 = 0

    var count: Int { positions.count }

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
        remove += index.evictOverLimit(keeping: -1)
        return (index, remove)
    }

    // MARK: Reads

    /// The file to read for `name`, or nil (a miss, counted).
    mutating func beginRead(_ name: String) -> (file: String, generation: UInt64)? {
        guard let position = positions[name], let entry = slots[position] else {
            statistics.misses += 1
            return nil
        }
        return (Self.fileName(name, entry.generation), entry.generation)
    }

    /// Records what reading version `generation` of `name` found, and says what to do next.
    mutating func finishRead(_ name: String, key: String, generation: UInt64, found: ReadKind, now: UInt64) -> ReadResolution {
        let position = positions[name]
        let current = position.flatMap { slots[$0] }
        switch found {
        case .intact:
            statistics.hits += 1
            guard let position, var entry = current, entry.generation == generation else { return .serve(touch: nil) }
            entry.stamp = nextStamp(now)
            entry.key = key
            slots[position] = entry
            moveToNewest(position)
            return .serve(touch: Touch(file: Self.fileName(name, generation), stamp: entry.stamp))
        case .corrupt:
            statistics.corruptDropped += 1
            if let position, current?.generation == generation { _ = removeSlot(position) }
            return .drop(file: Self.fileName(name, generation))
        case .missing:
            if let current, current.generation != generation {
                return .retry(file: Self.fileName(name, current.generation), generation: current.generation)
            }
            if let position, current?.generation == generation { _ = removeSlot(position) }
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
        if let position = positions[name], let existing = slots[position] {
            if existing.generation > generation { return [Self.fileName(name, generation)] }
            remove.append(Self.fileName(name, removeSlot(position).generation))
        }
        let position = insertNewest(Entry(name: name, generation: generation, size: size, stamp: stamp, key: key))
        return remove + evictOverLimit(keeping: position)
    }

    /// Forgets `name`; the file to delete, if it was there.
    mutating func remove(_ name: String) -> String? {
        guard let position = positions[name] else { return nil }
        let entry = removeSlot(position)
        return Self.fileName(name, entry.generation)
    }

    /// Forgets every entry; the files to delete.
    mutating func removeAll() -> [String] {
        let files = slots.compactMap { $0.map { Self.fileName($0.name, $0.generation) } }
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
        guard let position = positions[name], let entry = slots[position] else { return false }
        return entry.key == nil || entry.key == key
    }

    /// The current file of `name`.
    func file(for name: String) -> String? {
        positions[name].flatMap { slots[$0] }.map { Self.fileName($0.name, $0.generation) }
    }

    // MARK: Recency list

    private mutating func nextStamp(_ now: UInt64) -> UInt64 {
        lastStamp = max(now, lastStamp &+ 1)
        return lastStamp
    }

    @discardableResult
    private mutating func insertNewest(_ entry: Entry) -> Int {
        var entry = entry
        entry.older = newest
        entry.newer = -1
        let position: Int
        if let reused = free.popLast() {
            position = reused
            slots[position] = entry
        } else {
            position = slots.count
            slots.append(entry)
        }
        if newest >= 0 { slots[newest]?.newer = position } else { oldest = position }
        newest = position
        positions[entry.name] = position
        totalSize += entry.size
        return position
    }

    private mutating func unlink(_ position: Int) {
        guard let entry = slots[position] else { return }
        if entry.older >= 0 { slots[entry.older]?.newer = entry.newer } else { oldest = entry.newer }
        if entry.newer >= 0 { slots[entry.newer]?.older = entry.older } else { newest = entry.older }
    }

    private mutating func moveToNewest(_ position: Int) {
        guard position != newest else { return }
        unlink(position)
        slots[position]?.older = newest
        slots[position]?.newer = -1
        if newest >= 0 { slots[newest]?.newer = position } else { oldest = position }
        newest = position
    }

    private mutating func removeSlot(_ position: Int) -> Entry {
        unlink(position)
        let entry = slots[position]!
        slots[position] = nil
        free.append(position)
        positions[entry.name] = nil
        totalSize -= entry.size
        return entry
    }

    private mutating func evictOverLimit(keeping kept: Int) -> [String] {
        var remove: [String] = []
        while totalSize > sizeLimit, oldest >= 0, oldest != kept {
            let entry = removeSlot(oldest)
            statistics.evictions += 1
            remove.append(Self.fileName(entry.name, entry.generation))
        }
        return remove
    }
}
