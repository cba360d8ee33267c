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
@MainActor final class SeriesView { func show(_ series: [Double]) {} }
@MainActor let chart = SeriesView()
@MainActor final class PhotoCell { func show(_ result: Result<Data, any Error>) {} }
@MainActor let cell = PhotoCell()
@MainActor func showFeed(_ result: Result<[String], any Error>) {}
let trace = TraceRecorder()
let monitor = ResponsivenessMonitor()
let clock: any LaneClock = SystemLaneClock()
let item = queue.add(label: "item") { _ in 42 }
let height = 100
func trimCaches() {}
struct Photo: Sendable { var isCorrupt = false }
let photos = [Photo(), Photo()]
func thumbnail(_ photo: Photo) throws -> Data { Data() }
func writeThumbnail(_ photo: Photo) throws {}
func index(_ photo: Photo) {}
let urls = [url]
func prefetch(_ url: URL) throws {}
let files = ["a.txt", "b.txt"]
func fileSize(_ path: String) throws -> Int { 0 }
func reindex() async {}
func rebuildIndex() async {}
let pool = ThreadPoolExecutor(maxThreads: 4, idleTimeout: 10)
let commands = WorkQueue("commands", maxConcurrency: 1)
func handle(_ bytes: [UInt8]) {}
let descriptor = STDIN_FILENO
let source = ReadabilitySource(fileDescriptor: descriptor, on: commands) { _ in }
@MainActor final class Document { func save() {}; func saveAndQuit(status: Int32) {} }
@MainActor let document = Document()
let signals = SignalSource(signals: [SIGTERM], on: .main) { _ in }
func filterRow(_ row: Int) {}
let series = prices
let renderQueue = renders
func render(_ series: [Double], _ ctx: WorkContext) throws -> Chart { Chart() }
@MainActor func show(_ value: some Any) {}
@MainActor func showSpinner() {}
@MainActor func showOfflineBanner() {}
let charts = renders
func drawChart(_ ctx: WorkContext) throws -> Chart { Chart() }
let compress = WorkItem(label: "compress") { _ in Data() }
let upload = WorkItem(label: "upload") { _ in }
func shrink(_ data: Data, _ ctx: WorkContext) throws -> Data { data }
@MainActor final class App { var onQuit: (() -> Void)?; func start() {} }
@MainActor let app = App()
let values = [1, 2, 3]
func sum(_ values: [Int]) -> Int { values.reduce(0, +) }
@MainActor final class HudLabel { var text = ""; func flash(_ message: String) {} }
@MainActor let hud = HudLabel()
func log(_ message: String) {}
@MainActor final class Benchmark { func report(_ name: String, _ value: Duration) {} }
@MainActor let benchmark = Benchmark()
let data = Data()
func parse(_ data: Data) -> [String] { [] }
let numbers = [1, 2, 3]
func loadPage() async throws -> [String] { [] }
final class Store: Sendable { func snapshot() -> [String] { [] } }
let store = Store()
struct Quote: Sendable { var price = 0.0 }
let quote = Quote()
struct Settings: Sendable { static let defaults = Settings() }
struct Post: Sendable {}
struct Item: Sendable { var name: String; var price: Int }
struct Cart: Sendable { var items: [Item] = [] }
let cart = Owned(Cart(), name: "cart")
let counter = Owned(0, name: "counter")
let settings = Owned(Settings.defaults, name: "settings")
let a = WorkItem(label: "a") { _ in }
let b = WorkItem(label: "b") { _ in }
@MainActor final class SearchModel { func search(_ query: String) {} }
@MainActor let viewModel = SearchModel()
@MainActor final class TextField { func onChange(_ handler: @escaping @MainActor (String) -> Void) {} }
@MainActor let textField = TextField()
func reload() {}
func showHint() {}
@MainActor final class ToastView { func hide() {} }
@MainActor let toast = ToastView()
func pollServer() {}
@MainActor func loadVisibleRows(at offset: Double) {}
@MainActor final class Prefetcher { func update(firstVisibleRow: Int) {} }
@MainActor let prefetcher = Prefetcher()
struct ScrollEvent { var firstVisibleRow: Int }
@MainActor final class ScrollView { func onScroll(_ handler: @escaping @MainActor (ScrollEvent) -> Void) {} }
@MainActor let scrollView = ScrollView()
func fail(_ message: String) -> Never { fatalError(message) }
@MainActor func runTheApp() {}
let began = DispatchTime.now().uptimeNanoseconds
let ended = DispatchTime.now().uptimeNanoseconds
let io = WorkQueue("io", maxConcurrency: 4)
let parsing = WorkQueue("parsing", maxConcurrency: 2)
let work = WorkQueue("work", maxConcurrency: 2)
