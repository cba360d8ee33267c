#if canImport(Glibc)
import Foundation
import Glibc

/// glibc's malloc arenas, capped. glibc gives a thread that finds the shared arena busy an arena of its own (up to
/// eight per core) and keeps what is freed in an arena for later allocations there: each pool thread that decoded
/// a photo held on to megabytes of freed decode buffers and fetched file bytes, and the desk's peak RSS on 300 large
/// JPEGs stood about 30 MB above gThumb's (issue 37). Two arenas keep the freed memory in fewer places where the next
/// decode reuses it; the decodes themselves do not contend on malloc (a few large buffers each).
///
/// `LANES_DESK_ARENAS=default` leaves glibc's own setting (for comparison); `MALLOC_ARENA_MAX`, when set, wins.
enum MallocArenas {
    static let count: Int32 = 2

    /// Caps the arenas at ``count`` unless the environment says otherwise; true when glibc took the setting.
    @discardableResult
    static func cap() -> Bool {
        let environment = ProcessInfo.processInfo.environment
        guard environment["MALLOC_ARENA_MAX"] == nil, environment["LANES_DESK_ARENAS"] != "default" else { return false }
        // mallopt(M_ARENA_MAX, count): looked up, as Swift's Glibc module leaves out <malloc.h>.
        guard let program = dlopen(nil, RTLD_NOW), let symbol = dlsym(program, "mallopt") else { return false }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let arenaMax: Int32 = -8   // M_ARENA_MAX
        return unsafeBitCast(symbol, to: Mallopt.self)(arenaMax, count) == 1
    }
}
#endif
