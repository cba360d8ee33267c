import DequeModule
import Foundation
import Synchronization

/// Lanes' self-checks: the queue and node state machines verify their invariants at the end of their critical
/// sections and stop the process with the broken rule's name when one fails. Compiled into debug builds (and into
/// any build made with `-Xswiftc -DLANES_INTERNAL_CHECKS`), off until switched on: by the environment
/// (`LANES_INTERNAL_CHECKS=1`, read once) or by a test through ``isEnabled``. Release builds without the define
/// have no checks and no switch to test.
///
/// ```swift
/// InternalChecks.isEnabled = true   // the stress test does this before it starts
/// ```
package enum InternalChecks {
    #if DEBUG || LANES_INTERNAL_CHECKS
    private static let enabled = Atomic<Bool>(ProcessInfo.processInfo.environment["LANES_INTERNAL_CHECKS"] == "1")
    /// Counts checks, to space out full scans.
    private static let checks = Atomic<UInt64>(0)
    #endif

    /// Whether the checks run (always false in builds without them).
    package static var isEnabled: Bool {
        @inline(__always) get {
            #if DEBUG || LANES_INTERNAL_CHECKS
            return enabled.load(ordering: .relaxed)
            #else
            return false
            #endif
        }
        set {
            #if DEBUG || LANES_INTERNAL_CHECKS
            enabled.store(newValue, ordering: .relaxed)
            #endif
        }
    }

    /// Whether this check should also scan every entry: always for small states; for a state of n entries, once in
    /// max(256, n) checks, so that scanning costs O(1) per check amortised (a million items in one queue stay linear).
    static func wantsFullScan(entries: Int) -> Bool {
        #if DEBUG || LANES_INTERNAL_CHECKS
        if entries <= 64 { return true }
        return checks.add(1, ordering: .relaxed).newValue % UInt64(max(256, entries)) == 0
        #else
        return false
        #endif
    }

    static func fail(_ what: String, _ rule: String) -> Never {
        preconditionFailure("Lanes internal check failed (\(what)): \(rule)")
    }
}

extension QueueState {
    /// Checks the queue's books, its sub-states' included (called under its lock, at the end of every critical
    /// section, when enabled). Every field is covered: the counters and lists here, the barriers, the speculative cap
    /// and the batches by their own checks, the atomic mirrors by ``WorkQueue``'s.
    func _checkInvariants(queue name: String) {
        func require(_ condition: Bool, _ rule: @autoclosure () -> String) {
            if !condition { InternalChecks.fail("queue '\(name)'", rule()) }
        }
        require(limit >= 1, "limit \(limit) >= 1")
        require(running >= 0 && syncRunning >= 0 && syncRunning <= running, "0 <= syncRunning \(syncRunning) <= running \(running)")
        require(live >= 0 && unfinished >= 0 && workers >= 0 && sweeping >= 0,
                "live \(live), unfinished \(unfinished), workers \(workers), sweeping \(sweeping) >= 0")
        require(runningNodes.count <= running, "tracked running \(runningNodes.count) <= running \(running)")
        require(unfinished >= waitingNodes.count + live,
                "unfinished \(unfinished) >= waiting \(waitingNodes.count) + ready \(live)")
        require(!isIdle || idleWaiters.isEmpty, "an idle queue keeps no idle waiter (\(idleWaiters.count))")
        let entries = buckets.reduce(0) { $0 + $1.count } + runningNodes.count + waitingNodes.count
            + barriers.segments.count + batches.open.count
        let fullScan = InternalChecks.wantsFullScan(entries: entries)
        barriers._checkInvariants(running: running, fullScan: fullScan, require)
        batches._checkInvariants(syncRunning: syncRunning, fullScan: fullScan, require)
        guard fullScan else {
            speculative._checkInvariants(running: running, liveEntries: nil, require)
            return
        }
        for (index, node) in runningNodes.enumerated() {
            require(node.slot.runningIndex.load(ordering: .relaxed) == index, "running node \(node.label) knows its index")
        }
        for (index, node) in waitingNodes.enumerated() {
            require(node.slot.waitingIndex.load(ordering: .relaxed) == index, "waiting node \(node.label) knows its index")
            require(node.slot.member.load(ordering: .relaxed), "waiting node \(node.label) is a member")
            require(node.slot.level.load(ordering: .relaxed) < 0, "waiting node \(node.label) has no ready entry")
        }
        var liveEntries = 0, speculativeEntries = 0
        for (level, bucket) in buckets.enumerated() {
            for entry in bucket where entry.isListed(at: level) {
                liveEntries += 1
                if speculative.covers(level) { speculativeEntries += 1 }
                require(entry.node.slot.member.load(ordering: .relaxed), "ready node \(entry.node.label) is a member")
                require(entry.node.slot.epoch.load(ordering: .relaxed) == epoch,
                        "ready node \(entry.node.label) was admitted in this cancel-all epoch")
                require(entry.node.slot.waitingIndex.load(ordering: .relaxed) < 0,
                        "ready node \(entry.node.label) is not also waiting")
            }
        }
        require(liveEntries == live, "live entries \(liveEntries) == live \(live)")
        speculative._checkInvariants(running: running, liveEntries: speculativeEntries, require)
    }
}

extension WorkQueue {
    /// Checks the queue's invariants now (whether or not the switch is on); stops the process if one is broken.
    package func _checkInvariants() {
        state.withLock { _checkInvariants($0, mirrors: false) }
    }

    /// Checks `state` and, with `mirrors`, the atomics that mirror it for lock-free readers (called under the lock,
    /// once the mirrors were refreshed: each is written only under the lock, so it must equal what it mirrors; the
    /// ready-top mirror, which producers raise without the lock, must be at least the top bucket while a batch is
    /// open).
    func _checkInvariants(_ state: borrowing QueueState, mirrors: Bool = true) {
        state._checkInvariants(queue: name)
        func require(_ condition: Bool, _ rule: @autoclosure () -> String) {
            if !condition { InternalChecks.fail("queue '\(name)'", rule()) }
        }
        require(cancelEpoch.load(ordering: .relaxed) == state.epoch, "the cancel-all epoch mirror matches")
        // A runner lingers while attached and stops before it detaches (under this lock).
        let lingerers = lingering.load(ordering: .relaxed)
        require(lingerers >= 0 && lingerers <= state.workers, "0 <= lingering \(lingerers) <= workers \(state.workers)")
        require(turnPerItem == state.turnPerItem, "turn per item matches")
        guard mirrors else { return }
        require(workersMirror.load(ordering: .relaxed) == state.workers, "the workers mirror matches")
        require(limitMirror.load(ordering: .relaxed) == state.limit, "the limit mirror matches")
        require(poppableMirror.load(ordering: .relaxed) == state.canPop, "the poppable mirror matches")
        require(state.batches.open.isEmpty || readyTopMirror.load(ordering: .relaxed) >= state.topBucketLevel,
                "the ready-top mirror is at least the top bucket while a batch is open")
    }
}

extension WorkQueue {
    /// Checks a runner's `next` item (see ``RunnerBooks/next``) before it is listed: if it is in the waiting list, it
    /// is where its index says, a member of this epoch, with its dependencies finished (or itself finished: cancelled
    /// meanwhile). Otherwise it left the list (cancelled, swept, or listed by whoever admitted it from the inbox) or
    /// is still in the inbox, where the inbox's admission lists it.
    func _checkNext(_ node: WorkNode, _ state: borrowing QueueState) {
        func require(_ condition: Bool, _ rule: @autoclosure () -> String) {
            if !condition { InternalChecks.fail("queue '\(name)', runner's next item \(node.label)", rule()) }
        }
        let index = node.slot.waitingIndex.load(ordering: .relaxed)
        require(index >= -1 || index == QueueSlot.waitingInInbox, "its waiting index \(index) is valid")
        guard index >= 0 else { return }
        require(index < state.waitingNodes.count && state.waitingNodes[index] === node, "it is where its index says")
        require(node.slot.member.load(ordering: .relaxed) && node.slot.epoch.load(ordering: .relaxed) == state.epoch,
                "a waiting item is a member of this epoch")
        require(node.isReadyToRun || node.finishedFlag.load(ordering: .acquiring), "its dependencies have finished")
        require(node.slot.level.load(ordering: .relaxed) < 0, "it is not listed yet")
    }
}
