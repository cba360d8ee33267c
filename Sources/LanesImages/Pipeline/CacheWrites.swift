import Lanes

/// The cache writes the requests in flight asked for, by the stage whose result would be written: the memory cache
/// by a request's final stage, the disk cache by its URL's fetch. A stage shared by requests whose
/// ``ImageRequest/cachePolicy`` differ writes a cache when any request still waiting for it asked for that write: the
/// request that happened to start the stage does not decide for the others, and one that left no longer counts.
final class CacheWrites: Sendable {
    /// How many requests in flight want each stage's result written.
    private let wishes = LockedValue([StageKey: Int]())

    /// Records the writes `request` asks for; cancelling the returned token withdraws them, once however often it is
    /// cancelled (the project's run-once handle, ``ScheduledToken``), so a second call cannot withdraw another
    /// request's wish.
    /// With `thumbnails` (the pipeline has a thumbnail cache) a local file's disk write is its thumbnail's.
    func add(_ request: ImageRequest, thumbnails: Bool = false) -> ScheduledToken {
        var keys: [StageKey] = []
        if request.cachePolicy.contains(.writesMemory) { keys.append(request.finalKey) }
        if request.cachePolicy.contains(.writesDisk) { keys.append(request.fetchKey(thumbnails: thumbnails)) }
        guard !keys.isEmpty else { return ScheduledToken {} }
        let wishes = self.wishes, added = keys
        wishes.withLock { wishes in for key in added { wishes[key, default: 0] += 1 } }
        return ScheduledToken {
            wishes.withLock { wishes in
                for key in added {
                    wishes[key, default: 0] -= 1
                    if wishes[key] == 0 { wishes[key] = nil }
                }
            }
        }
    }

    /// Whether a request in flight wants the result of the stage `key` written to its cache.
    func wanted(_ key: StageKey) -> Bool {
        wishes.withLock { $0[key] != nil }
    }
}
