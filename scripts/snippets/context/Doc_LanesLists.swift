// What the LanesLists doc comments' examples assume of the reader's app: a stock list whose rows show charts.
import Synchronization

struct Chart: Sendable { var byteCount = 1 }
let symbols = ["AAPL", "MSFT", "GOOG"]
let queue = WorkQueue("queue", maxConcurrency: 2)
let renders = WorkQueue("renders", maxConcurrency: 2)
let downloads = WorkQueue("downloads", maxConcurrency: 4)
let filters = WorkQueue("filters", maxConcurrency: 2)
let decoding = WorkQueue("decoding", maxConcurrency: 2)
func renderChart(_ symbol: String, _ ctx: WorkContext) throws -> Chart { Chart() }
let cache = CostLimitedCache<String, Chart>(costLimit: 100)
let charts = ContentLoader(queue: renders, cache: cache) { symbol, ctx in try renderChart(symbol, ctx) }
let loader = charts
let key = "AAPL"
@MainActor final class StockCell {
    var chart: Chart?
    func configure(_ row: Int) {}
    func highlight() {}
    func show(_ chart: Chart) {}
    lazy var content = charts.binding(placeholder: { [unowned self] _ in chart = nil }) { [unowned self] _, result in
        chart = try? result.get()
    }
}
@MainActor let cell = StockCell()
@MainActor let list = ListModel(rowCount: symbols.count, rowHeight: 1, viewportHeight: 20) { StockCell() }
@MainActor func show(_ chart: Chart) {}
let chart = Chart()
func renderChart(_ symbol: String, isCancelled: () -> Bool) throws -> Chart { Chart() }
/// The app's image type (LanesLists knows nothing of images).
struct Bitmap: Sendable { var byteCount = 4 }
let bitmap = Bitmap()
let url = URL(string: "https://example.com/photo.jpg")!
let data = Data()
let symbol = "AAPL"
let staleSymbol = "MSFT"
let newSymbols = ["AAPL", "TSLA"]
let results = symbols
let rows = 20..<40
let rowsThatLeftThePreloadRange = 0..<10
func symbol(forRow row: Int) -> String { symbols[row % symbols.count] }
@MainActor func startLoading(_ key: String) {}
@MainActor final class TerminalRow {}
@MainActor final class Terminal { var rows = 24 }
@MainActor let terminal = Terminal()
@MainActor final class ImageView { var image: Bitmap? }
@MainActor let imageView = ImageView()
@MainActor final class HudLabel { var text = "" }
@MainActor let hud = HudLabel()
let scrollTop = 120.0
let clock = SystemLaneClock()
let network = WorkQueue("network", maxConcurrency: 4)
func download(_ url: URL) throws -> Data { Data() }
func tiltShift(_ data: Data, _ ctx: WorkContext) throws -> Bitmap { Bitmap() }
func decode(_ data: Data, _ ctx: WorkContext) throws -> Bitmap { Bitmap() }
func decodeThumbnail(_ url: URL, _ ctx: WorkContext) throws -> Bitmap { Bitmap() }
func fetchAvatar(_ url: URL, _ ctx: WorkContext) throws -> Bitmap { Bitmap() }
func fetchImage(_ url: URL) async throws -> Bitmap { Bitmap() }
func load(_ url: URL) throws -> Bitmap { Bitmap() }
func render() throws -> Chart { Chart() }
func work() {}
func restart() {}
let avatars = ContentLoader<URL, Bitmap>(queue: network, costLimit: 16 << 20, cost: { $0.byteCount }) { url, ctx in
    try fetchAvatar(url, ctx)
}
/// Deliveries of shared work and content requests (a `@Sendable` callback).
func show<Value>(_ result: Result<Value, any Error>) {}
func update(_ result: Result<Chart, any Error>) {}
let request = loader.request("AAPL") { result in update(result) }
/// The app's own transfers (an HTTP client with priorities), which a shared job steers.
final class Transfer: Sendable {
    func cancel() {}
    func setPriority(_ priority: WorkPriority) {}
    var priority: WorkPriority { get { .visible } set {} }
}
final class TransferSession: Sendable {
    func start(_ url: URL, priority: WorkPriority, completion: @escaping @Sendable (Result<Bitmap, any Error>) -> Void)
        -> Transfer { Transfer() }
}
let session = TransferSession()
let transfer = Transfer()
@MainActor var tracker = PreloadTracker()
let item = decoding.add(label: "decode") { ctx in try decode(data, ctx) }
let costs = CostEstimate()
