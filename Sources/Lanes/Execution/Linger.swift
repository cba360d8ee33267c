#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization

extension WorkQueue {
    /// Watches, without the lock, for work a runner could take: items pushed to the inbox, items made ready under
    /// the lock (dependencies finished, a resume), or a suspend or lowered limit that should send lingering runners
    /// away (`lingerBreaks` moved past `breaks`). Returns false once the deadline, set on the first call of a
    /// lingering spell to `nanoseconds` from now, has passed. Each turn yields the processor, so on a busy or single
    /// core the producer runs. A runner of a pool whose runners wait for its width (``PoolWidth``) stops lingering
    /// at once: it holds one of the pool's places.
    func awaitWork(
        for nanoseconds: UInt64, until deadline: inout UInt64?, breaks: UInt32, pool: ThreadPoolExecutor? = nil
    ) -> Bool {
        let end: UInt64
        if let deadline {
            end = deadline
        } else {
            let now = DispatchTime.now().uptimeNanoseconds
            end = now &+ nanoseconds < now ? .max : now &+ nanoseconds
            deadline = end
        }
        // Counted as lingering from before its first look at the inbox until after its last: a producer that sees
        // it lingering after pushing leaves the item to it (it takes the lock next, which admits the inbox).
        lingering.add(1, ordering: .sequentiallyConsistent)
        defer { lingering.subtract(1, ordering: .sequentiallyConsistent) }
        while true {
            if !inbox.isEmpty || poppableMirror.load(ordering: .acquiring) { return true }
            if lingerBreaks.load(ordering: .acquiring) != breaks { return true }
            if DispatchTime.now().uptimeNanoseconds >= end { return false }
            if let pool, pool.runnersWaiting { return false }
            _ = sched_yield()
        }
    }
}
