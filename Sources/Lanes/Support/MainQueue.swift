import Dispatch
import Foundation

/// Tells whether code runs on the main queue. On Linux, a program parked in `dispatchMain()` (as Swift's async `main`
/// is) has its main queue drained by a worker thread, so `Thread.isMainThread` alone is not enough. Under
/// ``MainLoop``, `RunLoop` or a loop driven by ``MainQueueDriver`` the main queue runs on the main thread.
public enum MainQueue {
    private static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Whether the caller runs on the main dispatch queue or the main thread. It does not tell which thread drains
    /// the main queue: `Thread.isMainThread` does (true inside main-queue work only under a loop on the main thread,
    /// such as ``MainLoop``).
    ///
    /// ```swift
    /// assert(MainQueue.isCurrent, "UI updates belong on the main queue")
    /// ```
    public static var isCurrent: Bool {
        isMainThread || DispatchQueue.getSpecific(key: key) == true
    }

    /// Whether the caller is the process's main thread: `Thread.isMainThread`, asked once per thread and then read
    /// from a thread-specific slot (on Linux Foundation's answer costs two system calls, `getpid` and `gettid`, and a
    /// GLib or `MainLoop` drain asks on every wake-up).
    package static var isMainThread: Bool {
        if let known = mainThreadSlot.value { return known == 1 }
        let isMain = Thread.isMainThread
        mainThreadSlot.value = isMain ? 1 : 2
        return isMain
    }

    /// Per thread: 1 on the main thread, 2 elsewhere, unset until the thread first asks.
    private static let mainThreadSlot = ThreadLocalKey()
}
