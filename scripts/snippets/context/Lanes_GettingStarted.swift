// What "Getting started" assumes of the reader's app: its queues, its data, its views and its work functions.
let processing = WorkQueue("processing", maxConcurrency: 2)
let network = WorkQueue("network", maxConcurrency: 4)
let filters = WorkQueue("filters", maxConcurrency: 2)
let charts = WorkQueue("charts", maxConcurrency: 2)
let prices: [Double] = [1, 2, 3]
let height = 100
let url = "https://example.com/photo.jpg"
struct Chart: Sendable {}
func smooth(_ prices: [Double], isCancelled: () -> Bool) throws -> [Double] { prices }
func filterRow(_ row: Int) {}
func fetch(_ url: String, _ ctx: WorkContext) throws -> [UInt8] { [] }
func fetchAndCache(_ url: String, _ ctx: WorkContext) throws -> [UInt8] { [] }
func tiltShift(_ data: [UInt8], _ ctx: WorkContext) throws -> [UInt8] { data }
func draw(row: Int, _ ctx: WorkContext) throws -> Chart { Chart() }
func trimCaches() {}
func rebuildIndex() async {}
@MainActor final class ChartView { func show(_ series: [Double]) {} }
@MainActor let chartView = ChartView()
@MainActor final class ImageView { var image: [UInt8]? }
@MainActor let cell = ImageView()
@MainActor final class StocksApp { func start() {} }
@MainActor func show(_ chart: Chart) {}
