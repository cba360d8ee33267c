import Foundation

// What "Loading images for a list" assumes of the reader's app: where its cache lives, its rows' photos.
struct Photo { var url: URL }
let cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("photos")
let photo = Photo(url: URL(string: "https://example.com/photo.jpg")!)
let url = photo.url
let pipeline = ImagePipeline()
let requests = (0..<100).map { ImageRequest(url: URL(string: "https://example.com/\($0).jpg")!) }
let visibleStart = 30
let visibleEnd = 40
let pngBytes = Data()
