// swift-tools-version:6.1
import PackageDescription

// The desktop app: a package of its own, depending on the main package (its LanesGLib and CGtk4 products among the
// others) as a user's app would, but by path; a path dependency's identity is its folder name, which is whatever the
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
        .executable(name: "lanes-desk", targets: ["lanes-desk"]),
    ],
    dependencies: [.package(path: "../..")],
    targets: [
        // Runs a GLib main loop with the bridge and measures it (the bridge tests run it as a child process).
        .executableTarget(
            name: "lanes-glib-probe",
            dependencies: [
                .product(name: "LanesGLib", package: lanes), .product(name: "CGtk4", package: lanes),
                .product(name: "Lanes", package: lanes), .product(name: "LanesAppSupport", package: lanes)],
            swiftSettings: strict),
        .executableTarget(
            name: "lanes-desk",
            dependencies: [
                .product(name: "LanesGLib", package: lanes), .product(name: "CGtk4", package: lanes),
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
