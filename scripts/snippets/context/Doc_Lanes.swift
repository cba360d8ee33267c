import Foundation

// What the Lanes doc comments' examples assume of the reader's app: its queues, its data, its views, its work.
let queue = WorkQueue("queue", maxConcurrency: 2)
let processing = WorkQueue("processing", maxConcurrency: 2)
let network = WorkQueue("network", maxConcurrency: 4)
let filters = WorkQueue("filters", maxConcurrency: 2)
let renders = WorkQueue("renders", maxConcurrency: 2)
let downloads = WorkQueue("downloads", maxConcurrency: 4)
let api = WorkQueue("api", maxConcurrency: 4)
let prices: [Double] = []
let url = URL(string: "https://example.com/photo.jpg")!
let session = URLSession.shared
struct Chart: Sendable {}
struct User: Sendable {}
struct Client: Sendable { func me() async throws -> User { User() } }
let client = Client()
func smooth(_ prices: [Double], isCancelled: () -> Bool) throws -> [Double] { prices }
func fetch(_ url: URL, _ ctx: WorkContext) throws -> Data { Data() }
func fetchAndCache(_ url: URL, _ ctx: WorkContext) throws -> Data { Data() }
func tiltShift(_ data: Data, _ ctx: WorkContext) throws -> Data { data }
func fetchFeed(_ ctx: WorkContext) throws -> [String] { [] }
func draw() -> Chart { Chart() }
let download = network.add(label: "download") { ctx in try fetch(url, ctx) }
let parse = WorkItem(label: "parse") { _ in [String]() }
let render = WorkItem(label: "render") { _ in Chart() }
@MainActor final class ChartView { func show(_ series: [Double]) {} }
@MainActor let chart = ChartView()
@MainActor final class PhotoCell { func show(_ result: Result<Data, any Error>) {} }
@MainActor let cell = PhotoCell()
@MainActor func showFeed(_ result: Result<[String], any Error>) {}
let trace = TraceRecorder()
let monitor = ResponsivenessMonitor()
let clock: any LaneClock = SystemLaneClock()
let item = queue.add(label: "item") { _ in 42 }
let height = 100
func trimCaches() {}
