// What the LanesImages doc comments' examples assume of the reader's app: a photo's bytes and bitmap, a pipeline,
// caches, a budget, and a cell that shows an image (its PhotoCell is the one ImageBinding's example declares).
let url = URL(string: "https://example.com/photo.jpg")!
let urls = [url]
let data = Data()
let bitmap = Bitmap(width: 1, height: 1, pixels: [0, 0, 0, 255])
let stored = bitmap
let logo = bitmap
let decoder = ImageDecoder()
let pipeline = ImagePipeline()
let request = ImageRequest(url: url)
let budget = MemoryBudget(limit: 64 << 20)
let cache = try! DiskCache(directory: FileManager.default.temporaryDirectory.appendingPathComponent("snippets"), sizeLimit: 1 << 20)
let width = 100
let height = 100
let bytes = 4 << 20
@MainActor let cell = PhotoCell()
@MainActor func show(_ value: some Any) {}
let photo = Bitmap(width: 4, height: 3, filledWith: .white)
let greyScan = Bitmap(width: 2, height: 1, layout: .grey8, pixels: [0, 255])
let png = Data()
let jpeg = Data()
let greyPNG = Data()
let body = [UInt8]()
let responseBody = Data()
let descriptor = STDIN_FILENO
let fileURL = URL(fileURLWithPath: "/tmp/photo.png")
let photoURL = url
let cachesURL = FileManager.default.temporaryDirectory
let dir = cachesURL.appending(path: "durable")
let key = url.absoluteString
let bitmapBytes = 4 << 20
let thumbnailBytes = 1 << 20
let decodeQueue = WorkQueue("decode", maxConcurrency: 2)
let queue = WorkQueue("render", maxConcurrency: 2)
let testQueue = WorkQueue("test", maxConcurrency: 1)
func render() {}
func renderThumbnail() {}
func startDecode(_ reservation: BudgetReservation) {}
let budgetRequest = budget.reserve(bytes, priority: .prefetch) { reservation in startDecode(reservation) }
let reservation = budget.tryReserve(bytes)!
@MainActor let stream: any RowEncoder = try! ImageEncoder.JPEGStream(width: 640, height: 480, optimizedCoding: false)
func download(_ url: URL) async throws -> Data { Data() }
let fetcher = DataFetcher()
/// Fetch completions run on a fetcher's thread: these hop to the main queue themselves.
func decodeAndShow(_ data: Data) {}
func showPlaceholder() {}
func log(_ message: String) {}
@MainActor final class ImageView { var image: Bitmap? }
@MainActor let view = ImageView()
@MainActor let avatar = ImageView()
final class ThumbnailStore: Sendable { func store(_ image: Bitmap?) {} }
let thumbnails = ThumbnailStore()
struct Row { var imageRequest: ImageRequest }
let rows = Array(repeating: Row(imageRequest: request), count: 40)
let requests = urls.map { ImageRequest(url: $0) }
@MainActor let list = ListModel(rowCount: requests.count, rowHeight: 1, viewportHeight: 20) { PhotoCell() }
let handle = fetcher.fetch(url, priority: .normal) { _ in }
// The incremental decoder's examples: a decoder, the chunks of a download, a row's buffer.
@MainActor let incremental = IncrementalDecoder()
let chunk = Data()
let firstChunk = Data()
let lastChunk = Data()
@MainActor let buffer = UnsafeMutableRawPointer.allocate(byteCount: 4, alignment: 16)
// The thumbnail cache's examples: a cache in a scratch folder and a file it knows.
let thumbnailCache = ThumbnailCache(
    directory: FileManager.default.temporaryDirectory.appendingPathComponent("snippet-thumbnails"),
    applicationName: "snippets")
let original = ThumbnailCache.Original(path: "/tmp/photo.png", modified: 0, byteCount: 0)
