// swift-tools-version:6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Lanes",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "Lanes", targets: ["Lanes"]),
        .library(name: "LanesTesting", targets: ["LanesTesting"]),
        .library(name: "LanesLists", targets: ["LanesLists"]),
        .library(name: "LanesImages", targets: ["LanesImages"]),
        .library(name: "StocksKit", targets: ["StocksKit"]),
        .library(name: "LanesAppSupport", targets: ["LanesAppSupport"]),
        // GTK 4 and GLib: only a target that depends on one of these needs their headers (Debian: libglib2.0-dev,
        // libgtk-4-dev); `swift build --product stocks` and the other products never compile them.
        .library(name: "LanesGLib", targets: ["LanesGLib"]),
        .library(name: "CGtk4", targets: ["CGtk4"]),
        .executable(name: "lanes-bench", targets: ["lanes-bench"]),
        .executable(name: "stocks", targets: ["stocks"]),
        .executable(name: "lanes-image", targets: ["lanes-image"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        // `swift package generate-documentation` (scripts/test builds every catalog and fails on a DocC warning).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // Core: work queues, work items, dependencies, cancellation, priorities, events.
        .target(
            name: "Lanes",
            dependencies: ["CLanesDispatch", "CLanesThreads", .product(name: "DequeModule", package: "swift-collections")],
            swiftSettings: strict
        ),
        // C shim over libdispatch's main-queue run-loop SPI (the eventfd and the drain), for MainQueueDriver.
        .target(name: "CLanesDispatch"),
        // Thread scheduling calls Swift cannot make (sched_setattr through the variadic syscall).
        .target(name: "CLanesThreads"),
        // Test support users import: manual executor, virtual clock, gates.
        .target(name: "LanesTesting", dependencies: ["Lanes"], swiftSettings: strict),
        // Per-cell content loading (dedupe, cache, stale guard, prefetch) and the headless list model.
        .target(name: "LanesLists", dependencies: ["Lanes"], swiftSettings: strict),
        // C shims over libpng / libjpeg-turbo (the longjmp error paths stay in C), libwebp, giflib, libavif, libheif and
        // libjxl (Debian: libwebp-dev libgif-dev libavif-dev libheif-dev libjxl-dev, installed by scripts/test-tools).
        .target(
            name: "CLanesCodecs",
            linkerSettings: [
                .linkedLibrary("png"), .linkedLibrary("jpeg"), .linkedLibrary("z"), .linkedLibrary("webp"),
                .linkedLibrary("webpdemux"), .linkedLibrary("gif"), .linkedLibrary("avif"),
                .linkedLibrary("heif"), .linkedLibrary("jxl"),
            ]
        ),
        // GLib/GIO's C API for the bridge (the main-queue hooks come from the core: MainQueueDriver).
        .systemLibrary(name: "CLanesGLib", pkgConfig: "gio-unix-2.0", providers: [.apt(["libglib2.0-dev"])]),
        // GTK 4's C API (GLib's and GIO's with it) as a module: `import CGtk4`, no module map of the user's own.
        .systemLibrary(name: "CGtk4", pkgConfig: "gtk4", providers: [.apt(["libgtk-4-dev"])]),
        // The GLib main-loop bridge: libdispatch's main queue (WorkQueue.main, @MainActor) drained by a GLib source.
        .target(name: "LanesGLib", dependencies: ["Lanes", "CLanesGLib"], swiftSettings: strict),
        // Image pipeline: fetch, disk cache, decode, processors, encode, coalesced per stage.
        .target(name: "LanesImages", dependencies: ["Lanes", "LanesLists", "CLanesCodecs"], swiftSettings: strict),
        // What the apps share and the libraries do not need: terminal-safe text, the `--trace FILE` flag.
        .target(name: "LanesAppSupport", dependencies: ["Lanes"], swiftSettings: strict),
        // Stock data: parsing, smoothing, braille charts (used by the `stocks` app).
        .target(name: "StocksKit", resources: [.copy("Data")], swiftSettings: strict),
        // The terminal stock browser (the WWDC 2012 app): its logic in a testable module, and a thin executable.
        .target(name: "StocksApp", dependencies: ["Lanes", "LanesLists", "LanesAppSupport", "StocksKit"], swiftSettings: strict),
        .executableTarget(name: "stocks", dependencies: ["StocksApp"], swiftSettings: strict),
        .executableTarget(
            name: "lanes-bench",
            dependencies: ["Lanes", "LanesAppSupport", "LanesLists", "LanesImages", "CLanesCodecs", "ScrollOracle"],
            swiftSettings: strict),
        // The scroll benchmark's oracle: the fewest rows any scheduler could leave unshown (lanes-bench scroll).
        .target(name: "ScrollOracle", swiftSettings: strict),
        // The image CLI: `lanes-image process INPUT... --tilt-shift --resize 800x --out DIR`.
        .executableTarget(
            name: "lanes-image",
            dependencies: ["Lanes", "LanesAppSupport", "LanesImages", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strict
        ),
        // The engine's soak: the suite's random-graph stress for minutes on end (`scripts/soak MINUTES`).
        .executableTarget(name: "lanes-soak", dependencies: ["Lanes", "LanesTesting"], swiftSettings: strict),
        // Decoder fuzz target: built with `scripts/fuzz` (-sanitize=fuzzer); a plain build replays a corpus.
        .executableTarget(name: "lanes-fuzz", dependencies: ["LanesImages"], swiftSettings: strict),
        .testTarget(name: "LanesTests", dependencies: ["Lanes", "LanesAppSupport", "LanesTesting", "lanes-main-probe"], swiftSettings: strict),
        // A child process for the main-thread tests: its real main thread runs the loop the test names.
        .executableTarget(
            name: "lanes-main-probe", dependencies: ["Lanes", "LanesTesting"], path: "Tests/LanesMainProbe",
            swiftSettings: strict),
        .testTarget(name: "LanesListsTests", dependencies: ["LanesLists", "LanesTesting"], swiftSettings: strict),
        .testTarget(
            name: "LanesImagesTests",
            dependencies: ["LanesImages", "LanesLists", "LanesTesting"],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .testTarget(name: "LanesImageCLITests", dependencies: ["lanes-image", "LanesAppSupport", "LanesTesting"], swiftSettings: strict),
        .testTarget(name: "ScrollOracleTests", dependencies: ["ScrollOracle", "LanesTesting"], swiftSettings: strict),
        .testTarget(name: "StocksKitTests", dependencies: ["StocksKit"], swiftSettings: strict),
        .testTarget(name: "StocksAppTests", dependencies: ["StocksApp", "LanesAppSupport", "LanesTesting"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
