// swift-tools-version:6.1
import PackageDescription

// A command-line program that depends on Lanes as any program would: by its URL. (scripts/examples builds it against
// the checkout it lives in, offline, with `swift package config set-mirror`.) It needs only a Swift toolchain.
let package = Package(
    name: "WordCount",
    dependencies: [
        .package(url: "https://github.com/lanes-swift/lanes", from: "0.1.0"),
    ],
    targets: [
        .executableTarget(name: "word-count", dependencies: [.product(name: "Lanes", package: "lanes")]),
    ],
    swiftLanguageModes: [.v6]
)
