// What the LanesImages doc comments' examples assume of the reader's app: a photo's bytes and bitmap, a pipeline,
// caches, a budget, and a cell that shows an image.
let url = URL(string: "https://example.com/photo.jpg")!
let urls = [url]
let data = Data()
let photo = Data()
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
@MainActor final class PhotoCell {
    var image: Bitmap?
    lazy var photo = ImageBinding(pipeline: pipeline, placeholder: { [unowned self] _ in image = nil }) {
        [unowned self] _, result in image = try? result.get()
    }
}
@MainActor let cell = PhotoCell()
@MainActor func show(_ value: some Any) {}
