import Foundation
// What "Formats and animations" assumes of the reader's app: the file's bytes and a view that shows a frame.
let data = Data()
@MainActor func show(_ frame: Bitmap) {}
