import Dispatch
import Foundation
import Lanes
import LanesTesting
import Testing

/// The reason inside a `wouldDeadlock` error, or nil for any other outcome.
private func deadlockReason(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch LanesError.wouldDeadlock(let reason) {
        return reason
    } catch {
        return nil
    }
}

/// Runs blocking code on a thread of its own (never on Swift's cooperative pool) and returns its result.
private func onNewThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

@Suite("Owned state", .timeLimit(.minutes(5)))
struct OwnedStateTests {
    @Test("mutations from concurrent producers are never lost and keep each producer's order")
    func concurrentProducers() async throws {
        let owned = Owned([[Int]](repeating: [], count: 8), name: "log")
        DispatchQueue.concurrentPerform(iterations: 8) { producer in
            for index in 0..<1_000 { owned.mutate { $0[producer].append(index) } }
        }
        let logs = await owned.snapshot()
        #expect(logs.map(\.count).reduce(0, +) == 8_000)
        for log in logs { #expect(log == Array(0..<1_000)) }
    }

    @Test("a blocking read sees every mutation posted before it, and update returns its result")
    func readYourWrites() throws {
        let counter = Owned(0, name: "counter")
        for _ in 0..<100 { counter.mutate { $0 += 1 } }
        #expect(try counter.read { $0 } == 100)
        let next = try counter.update { value -> Int in
            value += 1
            return value
        }
        #expect(next == 101)
        #expect(try counter.snapshot() == 101)
    }

    @Test("async reads, updates and snapshots never block and keep the order")
    func asyncForms() async throws {
        let names = Owned([String](), name: "names")
        names.mutate { $0.append("a") }
        let count = try await names.update { value -> Int in
            value.append("b")
            return value.count
        }
        names.mutate { $0.append("c") }
        #expect(count == 2)
        #expect(try await names.read { $0.joined() } == "abc")
        #expect(await names.snapshot() == ["a", "b", "c"])
    }

    @Test("a blocking read from the owner's own lane throws instead of deadlocking")
    func directReentrancy() async throws {
        let owned = Owned(1, name: "self")
        let reason = deadlockReason { _ = try owned.read { _ in try owned.read { $0 } } }
        #expect(reason?.contains("lane 'self' → lane 'self'") == true)
        // A plain item on the lane is refused too.
        let item = owned.lane.add(label: "plain") { _ in try owned.snapshot() }
        await #expect(throws: LanesError.self) { try await item.value }
        // And the owner still works.
        #expect(try await owned.read { $0 } == 1)
    }

    @Test("a two-owner cycle is refused with both lanes named")
    func twoOwnerCycle() throws {
        let a = Owned("a", name: "A"), b = Owned("b", name: "B")
        let reason = deadlockReason {
            _ = try a.read { _ in try b.read { _ in try a.read { $0 } } }
        }
        #expect(reason?.contains("lane 'A' → lane 'B' → lane 'A'") == true)
    }

    @Test("a three-owner cycle is refused at the third hop")
    func threeOwnerCycle() throws {
        let a = Owned(1, name: "A"), b = Owned(2, name: "B"), c = Owned(3, name: "C")
        let hops = Recorder<String>()
        let reason = deadlockReason {
            _ = try a.read { _ in
                hops.append("A")
                return try b.read { _ in
                    hops.append("B")
                    return try c.read { _ in
                        hops.append("C")
                        return try a.read { $0 }
                    }
                }
            }
        }
        #expect(hops.elements == ["A", "B", "C"])
        #expect(reason?.contains("lane 'A' → lane 'B' → lane 'C' → lane 'A'") == true)
    }

    @Test("a chain of blocking reads without a cycle is legal")
    func legalChain() throws {
        let a = Owned(10, name: "A"), b = Owned(20, name: "B"), c = Owned(30, name: "C")
        let sum = try a.read { x in try b.read { y in try c.read { z in x + y + z } } }
        #expect(sum == 60)
        // From a mutation on A's lane, reading B is fine as well.
        a.mutate { value in value += (try? b.read { $0 }) ?? -1_000 }
        #expect(try a.snapshot() == 30)
    }

    @Test("owners sharing one lane cannot block on each other")
    func sharedLane() async throws {
        let store = WorkQueue("store", maxConcurrency: 1)
        let users = try Owned(["ann"], name: "users", sharing: store)
        let posts = try Owned(["hello"], name: "posts", sharing: store)
        users.mutate { $0.append("bob") }
        posts.mutate { $0.append("world") }
        #expect(await users.snapshot() == ["ann", "bob"])
        #expect(await posts.snapshot() == ["hello", "world"])
        let reason = deadlockReason { _ = try users.read { _ in try posts.read { $0 } } }
        #expect(reason?.contains("lane 'store'") == true)
        #expect(throws: LanesError.invalidLimit(3)) {
            _ = try Owned(0, sharing: WorkQueue("wide", maxConcurrency: 3))
        }
    }

    @Test("of two blocking calls that would cross, exactly one is refused and the other completes")
    func crossingWaits() async throws {
        let a = Owned(1, name: "A"), b = Owned(2, name: "B")
        let aInside = Gate(), bInside = Gate(), aDone = Gate(), bDone = Gate()
        let outcomes = Recorder<String>()
        a.mutate { _ in
            aInside.open()
            bInside.wait()
            outcomes.append((try? b.read { "A read \($0)" }) ?? "A refused")
            aDone.open()
        }
        b.mutate { _ in
            bInside.open()
            aInside.wait()
            outcomes.append((try? a.read { "B read \($0)" }) ?? "B refused")
            bDone.open()
        }
        await aDone.wait()
        await bDone.wait()
        let results = outcomes.elements
        #expect(results.count == 2)
        #expect(results.filter { $0.hasSuffix("refused") }.count == 1)
        #expect(results.contains("A read 2") || results.contains("B read 1"))
    }

    @Test("snapshots are consistent: they never see half of a mutation")
    func snapshotConsistency() async throws {
        struct Pair: Sendable { var left = 0, right = 0 }
        let pair = Owned(Pair(), name: "pair")
        let torn = Recorder<Pair>()
        async let reader: Void = onNewThread {
            var last = -1
            for _ in 0..<300 {
                guard let seen = try? pair.snapshot() else { return }
                if seen.left != seen.right || seen.left < last { torn.append(seen) }
                last = seen.left
            }
        }
        for _ in 0..<2_000 {
            pair.mutate { value in
                value.left += 1
                value.right += 1
            }
        }
        await reader
        let final = await pair.snapshot()
        #expect(torn.elements.isEmpty)
        #expect(final.left == 2_000 && final.right == 2_000)
    }

    @Test("cancelling everything on a shared lane does not lose mutations")
    func cancelAllKeepsMutations() async throws {
        let name = "cancelled-\(UInt64.random(in: 0..<UInt64.max))"
        let cancelled = Recorder<String>()
        let token = WorkEvents.observe { event in
            if event.queue == name, event.kind == .cancelled { cancelled.append(event.label) }
        }
        defer { token.cancel() }
        let lane = WorkQueue(name, maxConcurrency: 1)
        let owned = try Owned(0, name: "counter", sharing: lane)
        lane.suspend()
        let seen = Recorder<Int>()
        for step in 1...3 { owned.mutate { $0 += step; seen.append($0) } }
        lane.cancelAll()
        lane.resume()
        // The batch that would have run the mutations was cancelled; the owner schedules another, so the
        // snapshot (posted after them) sees all three.
        #expect(await owned.snapshot() == 6)
        #expect(seen.elements == [1, 3, 6])
        #expect(cancelled.elements.contains("counter"))
        owned.mutate { $0 += 4; seen.append($0) }
        #expect(await owned.snapshot() == 10)
        #expect(seen.elements == [1, 3, 6, 10])
    }

    @Test("setPriority moves the lane item waiting to run the owner's operations, and later ones are made at it")
    func priorityFollows() async throws {
        let lane = WorkQueue("follows", maxConcurrency: 1)
        let owned = try Owned(0, sharing: lane, priority: .background)
        let order = Recorder<String>()
        lane.suspend()
        owned.mutate { _ in order.append("owner") }
        let other = lane.add(label: "other", priority: .normal) { _ in order.append("other") }
        owned.setPriority(.visible)   // without it the owner's batch (background) runs after `other`
        #expect(owned.priority == .visible)
        lane.resume()
        _ = try await other.value
        #expect(await owned.snapshot() == 0)
        #expect(order.elements == ["owner", "other"])
        lane.suspend()
        owned.mutate { _ in order.append("owner again") }
        let last = lane.add(label: "last", priority: .normal) { _ in order.append("last") }
        lane.resume()
        _ = try await last.value
        _ = await owned.snapshot()
        #expect(order.elements == ["owner", "other", "owner again", "last"])
    }

    @Test("an owner on the main queue: awaited reads work, a blocking read from the main queue throws")
    func mainLane() async throws {
        let ui = try Owned("title", sharing: .main)
        ui.mutate { $0 += "!" }
        #expect(await ui.snapshot() == "title!")
        let reason = await MainActor.run { deadlockReason { _ = try ui.read { $0 } } }
        #expect(reason?.contains("lane 'main'") == true)
        // From a plain background thread, a blocking read of the main-queue owner is fine.
        let fromThread = await onNewThread { try? ui.read { $0.count } }
        #expect(fromThread == 6)
    }
}
