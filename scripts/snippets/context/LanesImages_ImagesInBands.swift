import Foundation

// What "Images in bands" assumes: an open file and a photo's bytes.
let descriptor: Int32 = 0
let photo = Data()
let photoURL = URL(string: "https://example.com/photo.jpg")!
