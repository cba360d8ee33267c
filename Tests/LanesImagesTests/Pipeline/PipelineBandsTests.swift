import Foundation
import Lanes
@testable import LanesImages
import LanesLists
import LanesTesting
import Testing

/// A chain whose every processor has a row stage runs in bands (``ImagePipelineConfiguration/processesInBands``):
/// one stage decodes the fetched body in rows through the resize and the processors' row stages. Its pixels are the
/// staged path's (decode, then each processor on a whole bitmap).
@Suite("Pipeline chains in bands", .timeLimit(.minutes(5)))
struct PipelineBandsTests {
    static let chains: [[any ImageProcessor]] = [
        [Resize(width: 97)],
        [GaussianBlur(sigma: 3)],
        [TiltShift(sigma: 4)],
        [Greyscale()],
        [Resize(width: 150), GaussianBlur(sigma: 2.5), TiltShift(sigma: 3), Greyscale(coefficients: .rec709)],
    ]

    /// A PNG with translucent pixels (every channel is blurred, not only RGB).
    static func translucentPNG() throws -> Data {
        let bitmap = makeBitmap(width: 90, height: 70) { x, y in
            RGBA(red: UInt8(x * 2), green: UInt8(y * 3), blue: 200, alpha: UInt8(x < 45 ? 255 : 40 + y))
        }
        return try ImageEncoder().encode(bitmap, as: .png(compressionLevel: 1, filter: .none))
    }

    static func body(_ name: String) throws -> Data {
        name == "translucent.png" ? try translucentPNG() : try Fixture.data(name)
    }

    /// `processors` on `data` fitted to `size`, through a pipeline with bands on or off; its statistics after.
    func load(_ data: Data, size: TargetSize?, processors: [any ImageProcessor], inBands: Bool,
              decoder: ImageDecoder = ImageDecoder()) throws -> (Bitmap, ImagePipelineStatistics) {
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(data)])
        let executor = ManualExecutor()
        var configuration = ImagePipelineConfiguration(fetcher: fetcher, decoder: decoder, executor: executor)
        configuration.processesInBands = inBands
        let pipeline = ImagePipeline(configuration: configuration)
        let results = ResultBox()
        pipeline.load(ImageRequest(url: photoURL, targetSize: size, processors: processors), on: nil) {
            results.append($0)
        }
        while executor.runAll() > 0 {}
        return (try #require(results.all.first).get(), pipeline.statistics)
    }

    @Test("Each processor and a chain of all four give the staged path's pixels, in bands",
          arguments: ["chelsea.png", "rocket.jpg", "camera.png", "chelsea-progressive.jpg", "translucent.png"],
          [nil, TargetSize(maxWidth: 120)] as [TargetSize?])
    func bandsMatchTheStagedPath(_ name: String, size: TargetSize?) throws {
        let data = try Self.body(name)
        for processors in Self.chains {
            let label = "\(name) @\(size.map(\.description) ?? "full") \(ProcessorChain(processors).identifier)"
            let (banded, stats) = try load(data, size: size, processors: processors, inBands: true)
            let (staged, stagedStats) = try load(data, size: size, processors: processors, inBands: false)
            #expect(stats.bandedChains == 1 && stagedStats.bandedChains == 0, "\(label)")
            #expect(stats.decodes == 1 && stats.processorRuns == processors.count, "\(label)")
            #expect(banded.layout == staged.layout, "\(label)")
            #expect(largestDifference(banded, staged) <= 1, "\(label)")
            #expect(banded == staged, "\(label): the same bytes")
        }
    }

    @Test("A decoder that keeps the stored layout gets a grey image back grey from a banded chain")
    func greyStaysGrey() throws {
        let data = try Fixture.data("camera.png")
        let decoder = ImageDecoder(keepsStoredLayout: true)
        let processors: [any ImageProcessor] = [GaussianBlur(sigma: 2), Greyscale()]
        let (banded, stats) = try load(data, size: TargetSize(maxWidth: 200), processors: processors, inBands: true,
                                       decoder: decoder)
        let (staged, _) = try load(data, size: TargetSize(maxWidth: 200), processors: processors, inBands: false,
                                   decoder: decoder)
        #expect(stats.bandedChains == 1)
        #expect(banded.layout == .grey8 && banded == staged)
    }

    @Test("A JPEG whose Exif orientation rules bands out is decoded whole from the bytes fetched once")
    func rotatedIsDecodedWholeFromTheFetchedBytes() throws {
        let stored = makeBitmap(width: 48, height: 32) { x, y in RGBA(red: UInt8(x * 5), green: UInt8(y * 7), blue: 90) }
        let jpeg = try ImageEncoder().encode(stored, as: .jpeg(quality: 95))
        let rotated = Data(ExifSegment.inserting(ExifSegment.orientation(6, bigEndian: false), into: Array(jpeg)))
        let processors: [any ImageProcessor] = [GaussianBlur(sigma: 2)]
        let (banded, stats) = try load(rotated, size: TargetSize(maxWidth: 20), processors: processors, inBands: true)
        let (staged, _) = try load(rotated, size: TargetSize(maxWidth: 20), processors: processors, inBands: false)
        #expect(stats.fetches == 1 && stats.decodes == 1 && stats.bandedChains == 0)
        #expect(banded.width == 20 && banded.height == 30 && banded == staged)
    }

    @Test("Two banded chains on the same URL share the fetch and decode on their own; a third joins one in flight")
    func bandedChainsShareTheFetch() throws {
        let fetcher = ScriptedFetcher([photoURL.absoluteString: .success(try Fixture.data("chelsea.png"))])
        let (pipeline, executor) = manualPipeline(fetcher: fetcher)
        let size = TargetSize(maxWidth: 120)
        let results = ResultBox()
        for processors in [[TiltShift()], [Greyscale()], [TiltShift(), Greyscale()]] as [[any ImageProcessor]] {
            pipeline.load(ImageRequest(url: photoURL, targetSize: size, processors: processors), on: nil) {
                results.append($0)
            }
        }
        #expect(pipeline.stagesInFlight == (fetches: 1, bitmaps: 3))   // two banded chains, greyscale on the first
        while executor.runAll() > 0 {}
        #expect(results.successes.count == 3)
        let stats = pipeline.statistics
        #expect(stats.fetches == 1 && stats.decodes == 2 && stats.bandedChains == 2 && stats.processorRuns == 3)
    }

    /// A processor with no row stage (it returns its input).
    struct Unbanded: ImageProcessor {
        var identifier: String { "unbanded" }
        func process(_ bitmap: Bitmap, isCancelled: @Sendable () -> Bool) throws -> Bitmap { bitmap }
    }

    @Test("A processor with no row stage runs staged, on the banded result of the chain before it")
    func customProcessorIsStaged() throws {
        let data = try Fixture.data("chelsea.png")
        let (alone, aloneStats) = try load(data, size: nil, processors: [Unbanded()], inBands: true)
        #expect(aloneStats.bandedChains == 0 && aloneStats.decodes == 1 && aloneStats.processorRuns == 1)
        let processors: [any ImageProcessor] = [Greyscale(), Unbanded()]
        let (banded, stats) = try load(data, size: nil, processors: processors, inBands: true)
        let (staged, _) = try load(data, size: nil, processors: processors, inBands: false)
        #expect(stats.bandedChains == 1 && stats.decodes == 1 && stats.processorRuns == 2)
        #expect(banded == staged && alone.width == banded.width)
    }

    @Test("A banded chain checks for cancellation between bands of rows and stops there")
    func cancellationBetweenBands() throws {
        let body = FetchedBody(data: try Fixture.data("camera.png"))
        let asked = LockedValue(0)
        let counters = Counters(ImagePipelineStatistics())
        #expect(throws: ImageError.cancelled) {
            _ = try ImagePipeline.processInBands(
                body, size: nil, processors: [GaussianBlur(sigma: 2)], decoder: ImageDecoder(), maxPixels: 1 << 24,
                counters: counters, isCancelled: { asked.withLock { $0 += 1; return $0 > 3 } })
        }
        // 512 rows: more than three checks are needed to finish, so it stopped part-way.
        #expect(asked.withLock { $0 } == 4)
        #expect(counters.snapshot.bandedChains == 1)
    }

    @Test("The budget is asked for the banded chain's rows, not for whole intermediate images")
    func bandedCostIsBelowTheStagedOne() throws {
        let body = FetchedBody(data: try Fixture.data("rocket.jpg"))
        let processors: [any ImageProcessor] = [GaussianBlur(sigma: 4)]
        let banded = ImagePipeline.bandedCost(of: body, size: nil, processors: processors, decoder: ImageDecoder(),
                                              maxPixels: 1 << 24)
        // Staged: the decoded image, then the blur's output beside it.
        let image = 640 * 427 * 4
        #expect(banded > image && banded < 2 * image)
        #expect(ImagePipeline.bandedCost(of: FetchedBody(data: Data("not an image".utf8)), size: nil,
                                         processors: processors, decoder: ImageDecoder(), maxPixels: 1 << 24) == 0)
    }
}
