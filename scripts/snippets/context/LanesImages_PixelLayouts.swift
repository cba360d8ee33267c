import Foundation

// What "Pixel layouts" assumes: a few files' bytes and a bitmap with transparency.
let greyPNG = Data()
let sixteenBitPNG = Data()
let logo = Bitmap(width: 1, height: 1, pixels: [0, 0, 0, 0])
