import Dispatch
import Foundation
import Lanes
import LanesTesting
import Synchronization
import Testing

/// Burns roughly `micros` microseconds of CPU and returns something that depends on the work.
private func spin(micros: Int) -> Int {
    let end = DispatchTime.now().uptimeNanoseconds + UInt64(micros) * 1_000
    var x = 1
    while DispatchTime.now().uptimeNanoseconds < end { x = x &* 31 &+ 7 }
    return x
}

private struct MapFailure: Error, Equatable { let at: Int }

/// Counts live instances, to check that a failed map releases the results it had made.
private final class Counted: Sendable {
    static let alive = Atomic<Int>(0)
    init() { Self.alive.add(1, ordering: .relaxed) }
    deinit { Self.alive.subtract(1, ordering: .relaxed) }
}

@Suite("Concurrent enumeration", .timeLimit(.minutes(5)))
struct EnumerationTests {
    @Test("concurrentMap equals map, in order, for cheap and for slow bodies, on slices too")
    func mapMatches() async throws {
        let numbers = Array(0..<50_000)
        let cheap = await onDedicatedThread { try? numbers.concurrentMap { $0 &* 3 &+ 1 } }
        #expect(cheap == numbers.map { $0 &* 3 &+ 1 })
        let slice = numbers[1_000..<1_400]
        let slow = await onDedicatedThread { try? slice.concurrentMap { value -> String in _ = spin(micros: 20); return "#\(value)" } }
        #expect(slow == slice.map { "#\($0)" })
        let asyncForm = try await (0..<3_000).concurrentMap(maxConcurrency: 3) { $0 * 2 }
        #expect(asyncForm == (0..<3_000).map { $0 * 2 })
    }

    @Test("the calling thread and pool helpers both run bodies")
    func callerTakesPart() async throws {
        let helperRan = Gate()
        let onCaller = Recorder<Bool>()
        let ok = await onDedicatedThread {
            Thread.current.threadDictionary["lanes.test.caller"] = true
            return (try? (0..<200).concurrentForEach(maxConcurrency: 2) { index, _ in
                _ = spin(micros: 100)
                let isCaller = Thread.current.threadDictionary["lanes.test.caller"] != nil
                onCaller.append(isCaller)
                // The caller's bodies after the first wait until a helper has run one: that needs a helper.
                if isCaller {
                    if index > 0 { helperRan.wait() }
                } else {
                    helperRan.open()
                }
            }) != nil
        }
        #expect(ok)
        let seen = onCaller.elements
        #expect(seen.count == 200)
        #expect(seen.contains(true))
        #expect(seen.contains(false))
    }

    @Test("empty and single-element collections")
    func edgeSizes() throws {
        let calls = Atomic<Int>(0)
        try [Int]().concurrentForEach { _, _ in calls.add(1, ordering: .relaxed) }
        #expect(calls.load(ordering: .relaxed) == 0)
        #expect(try [Int]().concurrentMap { $0 + 1 } == [])
        #expect(try [7].concurrentMap { $0 + 1 } == [8])
        try ["only"].concurrentForEach { _, _ in calls.add(1, ordering: .relaxed) }
        #expect(calls.load(ordering: .relaxed) == 1)
    }

    @Test("an early stop skips the elements not yet started (a bounded number of bodies run after it)")
    func earlyStop() async throws {
        for slow in [false, true] {
            let ran = Atomic<Int>(0)
            await onDedicatedThread {
                try? (0..<20_000).concurrentForEach(maxConcurrency: 4) { _, stop in
                    if slow { _ = spin(micros: 10) }
                    if ran.add(1, ordering: .relaxed).newValue >= 50 { stop.stop() }
                }
            }
            let count = ran.load(ordering: .relaxed)
            #expect(count >= 50 && count <= 50 + 4, "slow: \(slow), ran: \(count)")
        }
    }

    @Test("a body's error propagates, the other bodies stop, and a failed map releases its partial results")
    func errorsPropagate() async throws {
        let ran = Atomic<Int>(0)
        let thrown = await onDedicatedThread { () -> (any Error)? in
            do {
                try (0..<10_000).concurrentForEach { index, _ in
                    _ = spin(micros: 5)
                    ran.add(1, ordering: .relaxed)
                    if index == 500 { throw MapFailure(at: index) }
                }
                return nil
            } catch {
                return error
            }
        }
        #expect(thrown as? MapFailure == MapFailure(at: 500))
        #expect(ran.load(ordering: .relaxed) < 10_000)

        let failedMap = await onDedicatedThread { () -> (any Error)? in
            do {
                _ = try (0..<5_000).concurrentMap { index -> Counted in
                    _ = spin(micros: 5)
                    if index == 3_000 { throw MapFailure(at: index) }
                    return Counted()
                }
                return nil
            } catch {
                return error
            }
        }
        #expect(failedMap as? MapFailure == MapFailure(at: 3_000))
        #expect(Counted.alive.load(ordering: .relaxed) == 0)
        await #expect(throws: MapFailure(at: 7)) {
            try await (0..<100).concurrentMap { index -> Int in
                if index == 7 { throw MapFailure(at: 7) }
                return index
            }
        }
    }

    @Test("cancelling the work item stops the enumeration, which throws cancelled")
    func itemCancellation() async throws {
        let queue = WorkQueue("enumerate")
        let handle = Recorder<WorkItem<Void>>()
        let ready = Gate()
        let ran = Atomic<Int>(0)
        let thrown = Recorder<String>()
        let item = queue.add(label: "scan") { ctx in
            ready.wait()
            do {
                try (0..<20_000).concurrentForEach(context: ctx) { _, _ in
                    _ = spin(micros: 10)
                    if ran.add(1, ordering: .relaxed).newValue == 200 { handle.elements[0].cancel() }
                }
            } catch {
                thrown.append("\(error)")
                throw error
            }
        }
        handle.append(item)
        ready.open()
        await #expect(throws: CancellationError.self) { try await item.value }
        #expect(thrown.elements == ["\(CancellationError())"])
        #expect(ran.load(ordering: .relaxed) < 1_000)
    }

    @Test("cancelling the awaiting task stops the async form")
    func taskCancellation() async throws {
        let started = Gate(), release = Gate()
        let ran = Atomic<Int>(0)
        let task = Task {
            try await (0..<10_000).concurrentForEach { index, _ in
                if index == 0 {
                    started.open()
                    release.wait()
                }
                ran.add(1, ordering: .relaxed)
            }
        }
        await started.wait()
        task.cancel()
        release.open()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ran.load(ordering: .relaxed) < 10_000)
    }

    @Test("a body that blocks on the caller's own lane is refused, on the caller's thread and on helpers")
    func bodiesCannotBlockOnCallersLane() async throws {
        let owned = Owned(1, name: "owner")
        let outcome = try await owned.update { _ -> String in
            do {
                try (0..<64).concurrentForEach(maxConcurrency: 4) { _, _ in
                    _ = spin(micros: 50)
                    _ = try owned.read { $0 }
                }
                return "completed"
            } catch LanesError.wouldDeadlock(let reason) {
                return reason
            }
        }
        #expect(outcome.contains("lane 'owner'"))
    }
}
