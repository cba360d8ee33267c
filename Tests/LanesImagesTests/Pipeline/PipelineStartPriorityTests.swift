import Foundation
import Lanes
import LanesImages
import LanesLists
import LanesTesting
import Testing

/// A transfer starts at the priority its requests ask for, not at the `.background` the pipeline's stages are made
/// with: the stage that could start at once (the fetch) waits until its consumer is wired and lending its priority.
/// On real threads, many times over, since the wrong start was a race between the fetch queue and the wiring.
@Suite("Pipeline: transfers start at the request's priority", .timeLimit(.minutes(5)))
struct PipelineStartPriorityTests {
    static let rounds = 200

    static func url(_ name: String, _ index: Int) -> URL { URL(string: "https://example.invalid/\(name)/\(index).png")! }

    @Test("loads at .utility and .visible start their fetch at that priority, every time",
          arguments: [WorkPriority.utility, .visible])
    func loads(priority: WorkPriority) async throws {
        let fetcher = MemoryFetcher()   // every URL: 404, so each load ends quickly
        let pipeline = ImagePipeline(configuration: ImagePipelineConfiguration(fetcher: fetcher))
        for index in 0..<Self.rounds {
            let done = Gate()
            pipeline.load(ImageRequest(url: Self.url("load", index)), priority: priority, on: nil) { _ in done.open() }
            await done.wait()
        }
        let starts = fetcher.starts
        #expect(starts.count == Self.rounds)
        let wrong = starts.filter { $0.priority != priority }
        #expect(wrong.isEmpty, "\(wrong.count) of \(starts.count) started at another priority: \(wrong.prefix(3))")
    }

    @Test("prefetches start their fetch at .prefetch, every time")
    func prefetches() async throws {
        let fetcher = MemoryFetcher()
        let pipeline = ImagePipeline(configuration: ImagePipelineConfiguration(fetcher: fetcher))
        for index in 0..<Self.rounds {
            pipeline.prefetch([ImageRequest(url: Self.url("prefetch", index))])
        }
        try await waitUntil("every prefetch started its fetch") { fetcher.starts.count == Self.rounds }
        let wrong = fetcher.starts.filter { $0.priority != .prefetch }
        #expect(wrong.isEmpty, "\(wrong.count) of \(Self.rounds) started at another priority: \(wrong.prefix(3))")
    }
}
