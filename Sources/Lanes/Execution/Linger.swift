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
    /// How long a pool runner that ran out of work stays attached, watching for more, before it detaches and its
    /// thread parks. Long enough to bridge the gaps of a producer adding items one at a time; short enough that
    /// the thread's CPU goes back to the system at once when a burst ends.
    static let lingerNanoseconds: UInt64 = 50_000

    /// Watches, without the lock, for work a runner could take: items pushed to the inbox, or items made ready
    /// under the lock (dependencies finished, a resume). Returns false once `deadline` (set on the first call of a
    /// lingering spell) passes. Each turn yields the processor, so on a busy or single core the producer runs.
    func awaitWork(until deadline: inout UInt64?) -> Bool {
        let end: UInt64
        if let deadline {
            end = deadline
        } else {
            end = DispatchTime.now().uptimeNanoseconds + Self.lingerNanoseconds
            deadline = end
        }
        while true {
            if !inbox.isEmpty || poppableMirror.load(ordering: .acquiring) { return true }
            if DispatchTime.now().uptimeNanoseconds >= end { return false }
            _ = sched_yield()
        }
    }
}
