import Foundation

/// lanes-desk's command line.
struct Options {
    var folder: String?
    var urlsFile: String?
    var count = 10_000
    var synthetic: Int?
    var naive = false
    var grid = false
    /// Preload a fixed 1.5 screens each way instead of following the scroll (for comparison).
    var fixedPreload = false
    var tiltShift = true
    /// Local files' thumbnails come from and go to the freedesktop thumbnail cache (`--no-thumbnail-cache`: not).
    var thumbnailCache = true
    var script: Scripts.Name?
    /// The folder is the one `--script hostile` built (``HostileFolder``), not the user's.
    var builtHostileFolder = false
    var report: String?
    var screenshot: String?
    var page = "photos"
    /// Seconds a `--urls` fetch may wait for the server, and three times that for the whole fetch with retries.
    var fetchTimeout = 10
    var width = 1024
    var height = 768

    static let usage = """
        usage: lanes-desk [options]
          --folder DIR        photos from DIR (PNG/JPEG, recursive) instead of the bundled library
          --urls FILE         photos from the URLs in FILE (one per line; file:// or http(s)://)
          --count N           entries in the bundled library (default 10000, at least 5000 recommended)
          --synthetic N       N synthetic stocks instead of the bundled series
          --naive             decode, filter and draw inside bind on the main thread (the "before")
          --no-tilt-shift     thumbnails without tilt-shift
          --no-thumbnail-cache  neither read nor write the shared thumbnail cache ($XDG_CACHE_HOME/thumbnails)
          --grid              photos in a grid (GtkGridView) instead of a list (GtkListView)
          --preload adaptive|fixed  prefetch that follows the scroll (default), or 1.5 screens each way
          --fetch-timeout S   seconds a URL may stall before its cell says so (default 10; 3×S in all)
          --page photos|stocks  the page shown first
          --size WxH          window size (default 1024x768)
          --script NAME       drive the app, then quit: fling, flood, flood-results, idle, memory, detail, pages,
                              categories, screens, hostile (builds a hostile folder unless --folder),
                              first-screen, idle-thumbnails, all
          --report FILE       write the run's figures as one JSON object at exit
          --screenshot FILE   after the script settles, save the window as a PNG (and FILE.cells.json)
        """

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var rest = arguments[...]
        func value(_ name: String) throws -> String {
            guard let value = rest.popFirst() else { throw OptionError("\(name) needs a value") }
            return value
        }
        func number(_ name: String) throws -> Int {
            let text = try value(name)
            guard let number = Int(text), number > 0 else { throw OptionError("\(name): not a positive number: \(text)") }
            return number
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--folder": options.folder = try value(argument)
            case "--urls": options.urlsFile = try value(argument)
            case "--count": options.count = try number(argument)
            case "--synthetic": options.synthetic = try number(argument)
            case "--naive": options.naive = true
            case "--grid": options.grid = true
            case "--preload":
                switch try value(argument) {
                case "adaptive": options.fixedPreload = false
                case "fixed": options.fixedPreload = true
                default: throw OptionError("--preload: adaptive or fixed")
                }
            case "--no-tilt-shift": options.tiltShift = false
            case "--no-thumbnail-cache": options.thumbnailCache = false
            case "--fetch-timeout": options.fetchTimeout = try number(argument)
            case "--page": options.page = try value(argument)
            case "--script":
                let name = try value(argument)
                guard let script = Scripts.Name(rawValue: name) else {
                    let names = Scripts.Name.allCases.map(\.rawValue).joined(separator: ", ")
                    throw OptionError("unknown script \(name.debugDescription) (one of \(names))")
                }
                options.script = script
            case "--report": options.report = try value(argument)
            case "--screenshot": options.screenshot = try value(argument)
            case "--size":
                let parts = try value(argument).split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2, parts.allSatisfy({ $0 >= 200 && $0 <= 8192 }) else {
                    throw OptionError("--size wants WxH, e.g. 1024x768")
                }
                (options.width, options.height) = (parts[0], parts[1])
            case "--help", "-h": throw OptionError(usage, isHelp: true)
            default: throw OptionError("unknown option \(argument.debugDescription) (--help lists them)")
            }
        }
        guard ["photos", "stocks"].contains(options.page) else { throw OptionError("--page: photos or stocks") }
        return options
    }
}

struct OptionError: Error {
    let message: String
    let isHelp: Bool
    init(_ message: String, isHelp: Bool = false) {
        self.message = message
        self.isHelp = isHelp
    }
}
