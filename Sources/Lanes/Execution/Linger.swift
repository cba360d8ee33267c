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
    /// lingering spell (`books.lingerDeadline`) to the runner's linger from now, has passed. Each turn yields the
    /// processor, so on a busy or single core the producer runs. A pool runner that began more than a quantum ago stops lingering as soon as other
    /// runners wait for the pool's width (``PoolWidth``): it holds one of the pool's places.
    func awaitWork(_ books: inout RunnerBooks, breaks: UInt32) -> Bool {
        let nanoseconds = books.linger, began = books.began
        let end: UInt64
        if let deadline = books.lingerDeadline {
            end = deadline
        } else {
            let now = DispatchTime.now().uptimeNanoseconds
            end = now &+ nanoseconds < now ? .max : now &+ nanoseconds
            books.lingerDeadline = end
        }
        // Counted as lingering from before its first look at the inbox until after its last: a producer that sees
        // it lingering after pushing leaves the item to it (it takes the lock next, which admits the inbox).
        lingering.add(1, ordering: .sequentiallyConsistent)
        defer { lingering.subtract(1, ordering: .sequentiallyConsistent) }
        while true {
            if !inbox.isEmpty || poppableMirror.load(ordering: .acquiring) { return true }
            if lingerBreaks.load(ordering: .acquiring) != breaks { return true }
            let now = DispatchTime.now().uptimeNanoseconds
            if now >= end { return false }
            if books.poolRunnersWaiting, now &- began >= ThreadPoolExecutor.quantum { return false }
            _ = sched_yield()
        }
    }
}
