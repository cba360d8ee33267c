import Foundation
import Lanes
@testable import LanesImages
import LanesLists
import LanesTesting
import Testing

@Suite("Pipeline cache switches", .timeLimit(.minutes(5)))
struct PipelineCachePolicyTests {
    @Test("A request that does not read the memory cache decodes again; one that does not write it leaves it empty")
    func memorySwitches() throws {
        let data = try Fixture.data("chelsea.png")
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(data)])
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let unwritten = ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 90), cachePolicy: [.readsMemory])
        pipeline.load(unwritten, on: nil) { _ in }
        executor.runAll()
        #expect(pipeline.cachedImage(for: unwritten) == nil && pipeline.statistics.decodes == 1)
        let request = ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 90))
        pipeline.load(request, on: nil) { _ in }
        executor.runAll()
        #expect(pipeline.cachedImage(for: request) != nil && pipeline.statistics.decodes == 2)
        let unread = ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 90), cachePolicy: [.writesMemory])
        let results = ResultBox()
        pipeline.load(unread, on: nil) { results.append($0) }
        #expect(results.all.isEmpty)   // not answered from the cache
        executor.runAll()
        #expect(results.successes.count == 1 && pipeline.statistics.decodes == 3)
        // A processor step does not start from a cached shorter chain either.
        let tilted = ImageRequest(
            url: photoURL, targetSize: TargetSize(maxWidth: 90), processors: [TiltShift()], cachePolicy: [.writesMemory])
        pipeline.load(tilted, on: nil) { _ in }
        executor.runAll()
        #expect(pipeline.statistics.intermediateHits == 0 && pipeline.statistics.decodes == 4)
    }

    @Test("A request that does not read the disk cache fetches; one that does not write it stores nothing")
    func diskSwitches() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "lanes-policy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = try Fixture.data("chelsea.png")
        let disk = try DiskCache(directory: directory, sizeLimit: 10 << 20)
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(data)])
        let (pipeline, executor) = manualPipeline(fetcher: fetcher, diskCache: disk)
        pipeline.load(ImageRequest(url: photoURL, cachePolicy: [.readsDisk]), on: nil) { _ in }
        executor.runAll()
        #expect(fetcher.fetchCount == 1 && disk.data(forKey: photoURL.absoluteString) == nil)
        pipeline.load(ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 10)), on: nil) { _ in }
        executor.runAll()   // fetched again (nothing on disk), and stored
        #expect(fetcher.fetchCount == 2 && disk.data(forKey: photoURL.absoluteString) != nil)
        pipeline.load(ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 20), cachePolicy: [.writesDisk]), on: nil) { _ in }
        executor.runAll()
        #expect(fetcher.fetchCount == 3 && pipeline.statistics.diskHits == 0)
        pipeline.load(ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 30)), on: nil) { _ in }
        executor.runAll()
        #expect(fetcher.fetchCount == 3 && pipeline.statistics.diskHits == 1)
    }

    // Requests whose switches differ, in flight together: each request's switches hold on the stages they share.

    @Test("A request that skips the disk cache never joins a fetch that reads it, nor a stage made from one")
    func diskReadOnSharedStages() throws {
        let (disk, directory) = try temporaryDiskCache()
        defer { try? FileManager.default.removeItem(at: directory) }
        try disk.store(try Fixture.data("camera.png"), forKey: photoURL.absoluteString)   // older bytes on disk
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(try Fixture.data("chelsea.png"))], holds: true)
        let (pipeline, executor) = manualPipeline(fetcher: fetcher, diskCache: disk)
        let size = TargetSize(maxWidth: 40)
        let cached = ResultBox(), fresh = ResultBox()
        pipeline.load(ImageRequest(url: photoURL, targetSize: size), on: nil) { cached.append($0) }
        pipeline.load(
            ImageRequest(url: photoURL, targetSize: size, cachePolicy: .all.subtracting(.readsDisk)), on: nil
        ) { fresh.append($0) }
        #expect(pipeline.stagesInFlight == (fetches: 2, bitmaps: 2))
        executor.runAll()
        fetcher.completeAll()
        while executor.runAll() > 0 {}
        #expect(fetcher.fetchCount == 1 && pipeline.statistics.diskHits == 1)
        #expect(cached.successes.count == 1 && fresh.successes.count == 1)
        #expect(cached.successes.first != fresh.successes.first)   // the disk's image, and the fetched one
    }

    @Test("A request that skips the memory cache never joins a processor step that started from a cached result")
    func memoryReadOnSharedStages() throws {
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(try Fixture.data("chelsea.png"))])
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let size = TargetSize(maxWidth: 40)
        pipeline.load(ImageRequest(url: photoURL, targetSize: size, processors: [Greyscale()]), on: nil) { _ in }
        while executor.runAll() > 0 {}   // [grey] is cached
        let results = ResultBox()
        pipeline.load(ImageRequest(url: photoURL, targetSize: size, processors: [Greyscale(), TiltShift()]), on: nil) {
            results.append($0)
        }
        pipeline.load(
            ImageRequest(
                url: photoURL, targetSize: size, processors: [Greyscale(), TiltShift()],
                cachePolicy: .all.subtracting(.readsMemory)), on: nil
        ) { results.append($0) }
        while executor.runAll() > 0 {}
        #expect(results.successes.count == 2)
        let stats = pipeline.statistics
        #expect(stats.intermediateHits == 1)   // the first started from the cached [grey]; the second did not
        #expect(stats.decodes == 2 && stats.processorRuns == 4)
    }

    @Test("A shared fetch writes the disk cache when a request still waiting for it asked for that, and only then")
    func diskWriteOnSharedStages() throws {
        let (disk, directory) = try temporaryDiskCache()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fetcher = ScriptedFetcher([
            photoURL.absoluteString: .success(try Fixture.data("chelsea.png")),
            otherURL.absoluteString: .success(try Fixture.data("camera.png")),
        ], holds: true)
        let (pipeline, executor) = manualPipeline(fetcher: fetcher, diskCache: disk)
        let unwritten = ImageRequest.CachePolicy.all.subtracting(.writesDisk)
        // The request that does not write starts the fetch; one that does joins it.
        pipeline.load(ImageRequest(url: photoURL, cachePolicy: unwritten), on: nil) { _ in }
        pipeline.load(ImageRequest(url: photoURL), on: nil) { _ in }
        // The request that writes starts the fetch, and leaves before the bytes arrive.
        let writer = pipeline.load(ImageRequest(url: otherURL), on: nil) { _ in }
        pipeline.load(ImageRequest(url: otherURL, cachePolicy: unwritten), on: nil) { _ in }
        executor.runAll()
        writer.cancel()
        fetcher.completeAll()
        while executor.runAll() > 0 {}
        #expect(disk.data(forKey: photoURL.absoluteString) != nil)
        #expect(disk.data(forKey: otherURL.absoluteString) == nil)
    }

    @Test("A shared stage writes the memory cache when a request still waiting for it asked for that, and only then")
    func memoryWriteOnSharedStages() throws {
        let fetcher = ScriptedFetcher([
            photoURL.absoluteString: .success(try Fixture.data("chelsea.png")),
            otherURL.absoluteString: .success(try Fixture.data("camera.png")),
        ], holds: true)
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let unwritten = ImageRequest.CachePolicy.all.subtracting(.writesMemory)
        let photo = ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 40))
        let other = ImageRequest(url: otherURL, targetSize: TargetSize(maxWidth: 40))
        // The request that does not write starts the stage; one that does joins it.
        pipeline.load(ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 40), cachePolicy: unwritten), on: nil) {
            _ in
        }
        pipeline.load(photo, on: nil) { _ in }
        // The request that writes starts the stage, and leaves before it ends.
        let writer = pipeline.load(other, on: nil) { _ in }
        pipeline.load(ImageRequest(url: otherURL, targetSize: TargetSize(maxWidth: 40), cachePolicy: unwritten), on: nil) {
            _ in
        }
        executor.runAll()
        writer.cancel()
        fetcher.completeAll()
        while executor.runAll() > 0 {}
        #expect(pipeline.statistics.decodes == 2)
        #expect(pipeline.cachedImage(for: photo) != nil)
        #expect(pipeline.cachedImage(for: other) == nil)
    }

    @Test("The list loader gives requests that differ only in their disk switches a job each, and answers both")
    func loaderJobsFollowTheSwitches() throws {
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(try Fixture.data("chelsea.png"))], holds: true)
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let loader = pipeline.loader(deliveringOn: WorkQueue("cells", maxConcurrency: 1, executor: executor))
        let onDisk = ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 40))
        let offDisk = ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 40), cachePolicy: [.readsMemory, .writesMemory])
        let results = ResultBox()
        loader.request(onDisk) { results.append($0) }
        loader.request(offDisk) { results.append($0) }
        #expect(loader.inFlightCount == 2)
        #expect(loader.stats.joined == 0)
        executor.runAll()
        #expect(fetcher.handles.count == 2)   // one fetch that may read the disk cache, one that may not
        fetcher.completeAll()
        while executor.runAll() > 0 {}
        #expect(results.successes.count == 2)
        #expect(loader.inFlightCount == 0)
    }

    @Test("The list loader follows the memory switches too: an unread request is not answered from the cache, an unwritten one leaves it empty")
    func loaderFollowsTheMemorySwitches() throws {
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(try Fixture.data("chelsea.png"))])
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let loader = pipeline.loader(deliveringOn: WorkQueue("cells", maxConcurrency: 1, executor: executor))
        let unwritten = ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 40), cachePolicy: [.readsMemory])
        let results = ResultBox()
        loader.request(unwritten) { results.append($0) }
        while executor.runAll() > 0 {}
        #expect(results.successes.count == 1 && pipeline.cachedImage(for: unwritten) == nil)
        let request = ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 40))
        loader.request(request) { results.append($0) }
        while executor.runAll() > 0 {}
        #expect(pipeline.cachedImage(for: request) != nil && pipeline.statistics.decodes == 2)
        let unread = ImageRequest(url: photoURL, targetSize: TargetSize(maxWidth: 40), cachePolicy: [.writesMemory])
        let answered = loader.request(unread) { results.append($0) }
        #expect(!answered.wasAnsweredFromCache && results.successes.count == 2)
        while executor.runAll() > 0 {}
        #expect(results.successes.count == 3 && pipeline.statistics.decodes == 3 && loader.stats.cacheHits == 0)
    }

    @Test("Withdrawing a request's cache wishes twice withdraws them once: another request's wish stands")
    func wishWithdrawnOnce() {
        let writes = CacheWrites()
        let request = ImageRequest(url: photoURL)
        let first = writes.add(request)
        let second = writes.add(request)
        first.cancel()
        first.cancel()
        #expect(writes.wanted(request.finalKey))
        #expect(writes.wanted(request.fetchKey))
        second.cancel()
        #expect(!writes.wanted(request.finalKey))
        #expect(!writes.wanted(request.fetchKey))
    }

    private func temporaryDiskCache() throws -> (DiskCache, URL) {
        let directory = FileManager.default.temporaryDirectory.appending(path: "lanes-policy-\(UUID().uuidString)")
        return (try DiskCache(directory: directory, sizeLimit: 10 << 20), directory)
    }
}
