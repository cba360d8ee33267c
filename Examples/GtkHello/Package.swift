// swift-tools-version:6.1
import PackageDescription

// A GTK 4 app that depends on Lanes as any app would: by its URL. (scripts/examples builds it against the checkout
// it lives in, offline, with `swift package config set-mirror`.) Building it needs the GLib and GTK 4 headers
// (Debian: libglib2.0-dev libgtk-4-dev pkg-config).
let package = Package(
    name: "GtkHello",
    dependencies: [
        .package(url: "https://github.com/lanes-swift/lanes", from: "0.1.0"),
    ],
    targets: [
        .executableTarget(
            name: "gtk-hello",
            dependencies: [
                .product(name: "Lanes", package: "lanes"),
                .product(name: "LanesGLib", package: "lanes"),
                .product(name: "CGtk4", package: "lanes"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
