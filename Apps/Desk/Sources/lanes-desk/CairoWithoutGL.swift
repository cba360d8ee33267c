import Foundation

/// GTK's Cairo renderer without GL. Asked for Cairo (`GSK_RENDERER=cairo`, what the scripts set under Xvfb, which
/// has no GPU), GTK 4.8's X11 backend still opens a GL display at start to choose the window's visual: under Xvfb
/// that is Mesa's llvmpipe, which maps LLVM (43 MB resident) and compiles its shaders (8 MB more) for a renderer that
/// never draws. With GL disabled (`GDK_DEBUG=gl-disable`) GTK picks the plain X visual and Cairo draws the same
/// pixels: a cold launch on 2,000 small photos held 137 MB at 6 s, 78 MB without GL (issue 37). Any other renderer,
/// or none named, keeps GL; so does `LANES_DESK_GL=keep` (for comparison).
enum CairoWithoutGL {
    /// Disables GDK's GL when Cairo is the renderer asked for, before GTK starts; true when it did.
    @discardableResult
    static func apply() -> Bool {
        let environment = ProcessInfo.processInfo.environment
        guard environment["GSK_RENDERER"] == "cairo", environment["LANES_DESK_GL"] != "keep" else { return false }
        let debug = environment["GDK_DEBUG", default: ""]
        guard !debug.split(separator: ",").contains("gl-disable") else { return true }
        return setenv("GDK_DEBUG", debug.isEmpty ? "gl-disable" : debug + ",gl-disable", 1) == 0
    }

    /// Whether a GL driver is mapped into the process (a Mesa DRI driver or LLVM, from /proc/self/maps): the report's
    /// `gl_driver_mapped`.
    static func driverMapped() -> Bool {
        guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return false }
        return maps.split(separator: "\n").contains { $0.contains("_dri.so") || $0.contains("libLLVM") }
    }
}
