// swift-tools-version:6.1
import PackageDescription

// The desktop app and the GLib main-loop bridge: a package of their own so the main package never needs GTK.
// It depends on the main package by path; a path dependency's identity is its folder name, which is whatever the
// checkout is called (`main` here, something else in CI), so derive it rather than spell it.
let lanes = String(Context.packageDirectory.split(separator: "/").dropLast(2).last ?? "Lanes")

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "LanesDesk",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LanesGLib", targets: ["LanesGLib"]),
        .executable(name: "lanes-desk", targets: ["lanes-desk"]),
    ],
    dependencies: [.package(path: "../..")],
    targets: [
        // GLib/GIO headers (the main-queue hooks come from core: MainQueueDriver).
        .systemLibrary(name: "CGLib", pkgConfig: "gio-unix-2.0", providers: [.apt(["libglib2.0-dev"])]),
        .systemLibrary(name: "CGtk", pkgConfig: "gtk4", providers: [.apt(["libgtk-4-dev"])]),
        // The bridge: libdispatch's main queue (WorkQueue.main, @MainActor) drained by a GLib source.
        .target(
            name: "LanesGLib", dependencies: ["CGLib", .product(name: "Lanes", package: lanes)], swiftSettings: strict),
        // Runs a GLib main loop with the bridge and measures it (the bridge tests run it as a child process).
        .executableTarget(
            name: "lanes-glib-probe",
            dependencies: ["LanesGLib", "CGLib", .product(name: "Lanes", package: lanes), .product(name: "LanesAppSupport", package: lanes)],
            swiftSettings: strict),
        .executableTarget(
            name: "lanes-desk",
            dependencies: [
                "LanesGLib", "CGtk",
                .product(name: "Lanes", package: lanes),
                .product(name: "LanesAppSupport", package: lanes),
                .product(name: "LanesLists", package: lanes),
                .product(name: "LanesImages", package: lanes),
                .product(name: "StocksKit", package: lanes),
            ],
            resources: [.copy("Photos")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DeskTests",
            dependencies: [
                "lanes-glib-probe", "lanes-desk", .product(name: "Lanes", package: lanes),
                .product(name: "LanesImages", package: lanes),
            ],
            swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
