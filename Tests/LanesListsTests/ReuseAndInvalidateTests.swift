import Lanes
import LanesLists
import LanesTesting
import Testing

@MainActor
@Suite("Reused cells and invalidate", .timeLimit(.minutes(5)))
struct ReuseAndInvalidateTests {
    @Test("row 3's cell is reused for row 40 while row 3 renders: row 3's result never reaches it")
    func reuseWhileRendering() async {
        let h = LoaderHarness()
        let gate = h.gate("row 3")
        let cell = TestCell(id: 1, loader: h.loader)
        cell.content.show("row 3")
        let done = h.workExecutor.runNextOnDedicatedThread()
        await gate.started.wait()                 // row 3 is rendering
        cell.content.show("row 40")               // reused before it finished
        gate.release.open()
        await done.wait()
        h.settle()
        #expect(h.stopped.elements == ["row 3"])  // the render saw its cancellation
        #expect(cell.shown == ["v:row 40"])
        #expect(cell.placeholders == ["row 3", "row 40"])
        #expect(h.loader.stats.wrongCellDeliveries == 0)
    }

    @Test("row 3 finished but not yet delivered when its cell is reused: the value goes to the cache, not the cell")
    func reuseWhileDelivering() {
        let h = LoaderHarness()
        let cell = TestCell(id: 1, loader: h.loader)
        cell.content.show("row 3")
        h.workExecutor.runAll()                   // row 3 is done; its delivery waits on the main queue
        cell.content.show("row 40")
        h.settle()
        #expect(cell.shown == ["v:row 40"])
        #expect(h.loader.cache["row 3"] == "v:row 3")
        let other = TestCell(id: 2, loader: h.loader)
        #expect(other.content.show("row 3"))      // scrolled back: instant
        #expect(other.shown == ["v:row 3"])
        #expect(h.ran.elements == ["row 3", "row 40"])
    }

    @Test("a shared render keeps running for the cell still showing its row, and reaches only that cell")
    func sharedRender() async {
        let h = LoaderHarness()
        let gate = h.gate("row 3")
        let reused = TestCell(id: 1, loader: h.loader)
        let stays = TestCell(id: 2, loader: h.loader)
        reused.content.show("row 3")
        stays.content.show("row 3")
        let done = h.workExecutor.runNextOnDedicatedThread()
        await gate.started.wait()
        reused.content.show("row 40")
        gate.release.open()
        await done.wait()
        h.settle()
        #expect(h.stopped.elements.isEmpty)
        #expect(stays.shown == ["v:row 3"])
        #expect(reused.shown == ["v:row 40"])
    }

    @Test("a binding that is released withdraws its request")
    func releasedBinding() {
        let h = LoaderHarness()
        var cell: TestCell? = TestCell(id: 1, loader: h.loader)
        cell!.content.show("a")
        #expect(h.loader.inFlightCount == 1)
        cell = nil
        #expect(h.loader.inFlightCount == 0)
        h.settle()
        #expect(h.ran.elements.isEmpty)
    }

    @Test("invalidate cancels everything pending atomically while items run")
    func invalidateWhileRunning() async {
        let workQueue = WorkQueue("invalidate-work", maxConcurrency: 2)
        let mainExecutor = ManualExecutor()
        let main = WorkQueue("invalidate-main", maxConcurrency: 1, executor: mainExecutor)
        let ran = Recorder<String>()
        let started = [Gate(), Gate()]
        let release = Gate()
        let loader = ContentLoader<Int, String>(queue: workQueue, deliveryQueue: main, costLimit: 100) { key, _ in
            ran.append("\(key)")
            if key < 2 {
                started[key].open()
                release.wait()                    // ignores cancellation on purpose
            }
            return "v\(key)"
        }
        loader.cache[-1] = "old"
        let delivered = Recorder<Int>()
        for key in 0..<2 { loader.request(key) { _ in delivered.append(key) } }
        await started[0].wait()
        await started[1].wait()                   // both running; the rest wait for a slot
        for key in 2..<6 { loader.request(key) { _ in delivered.append(key) } }
        loader.prefetch([6, 7])
        loader.invalidate()
        #expect(loader.inFlightCount == 0)
        release.open()
        await workQueue.idle()
        mainExecutor.runAll()
        #expect(delivered.elements.isEmpty)
        #expect(ran.elements.sorted() == ["0", "1"])   // nothing pending started
        #expect(loader.stats.cancelled == 8)
        #expect(loader.cache.count == 1)                // late values do not refill the cache
        #expect(loader.cache[-1] == "old")
        loader.invalidate(clearingCache: true)
        #expect(loader.cache.count == 0)
        // The loader works again afterwards.
        loader.request(9) { _ in delivered.append(9) }
        await workQueue.idle()
        mainExecutor.runAll()
        #expect(delivered.elements == [9])
    }
}
