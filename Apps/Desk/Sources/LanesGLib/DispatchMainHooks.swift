import CGLib

/// libdispatch's hooks for a foreign run loop, as CoreFoundation's RunLoop uses them: the main queue's wake-up
/// eventfd and the drain of a snapshot of its work. (To be replaced by core's `MainQueueDriver` once it lands.)
enum DispatchMainHooks {
    /// The eventfd libdispatch writes when the main queue has work. Asking for it binds the main queue to a
    /// foreign loop: from then on its work runs only when ``drain()`` is called.
    static var wakeupDescriptor: Int32 { _dispatch_get_main_queue_handle_4CF() }

    /// Reads (resets) the eventfd, then runs the main queue's work enqueued so far; work enqueued while it runs waits
    /// for the next wake-up. Main thread only.
    static func drain(descriptor: Int32) {
        var counter: UInt64 = 0
        // Nonblocking eventfd: a spurious wake-up reads nothing (EAGAIN) and drains nothing harmful.
        _ = withUnsafeMutableBytes(of: &counter) { read(descriptor, $0.baseAddress, 8) }
        _dispatch_main_queue_callback_4CF(nil)
    }
}
