import Foundation
// What "Formats and animations" assumes of the reader's app: the file's bytes, a view that shows a frame, and a
// bitmap to write.
let data = Data()
let bitmap = Bitmap(width: 1, height: 1)
@MainActor func show(_ frame: Bitmap) {}
