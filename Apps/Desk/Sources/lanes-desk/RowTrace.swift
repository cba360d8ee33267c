import Foundation
import Lanes
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `LANES_DESK_TRACE_ROWS=FILE`: a diagnostic trace of what each row on screen waits for, one JSON object per line,
/// written as it happens (so a run ended by a signal keeps it). Built on the core's event stream (`WorkEvents`):
///
/// - `{"e":"load","t":…,"row":12,"p":"visible","screen":true}`: a row's load was asked for or re-prioritised
///   (`p` null: withdrawn);
/// - `{"e":"bind","t":…,"row":12}`: a cell was bound to the row; `{"e":"shown","t":…,"row":12}`: the cell drew the
///   row's image; `{"e":"rest","t":…}`: a script saw the grid come to rest;
/// - `{"e":"frame","t":…,"offset":…}`: a frame of the main thread, with the grid's scroll position (pixels);
/// - `{"e":"started"|"finished"|"cancelled","t":…,"q":"image decode","label":"decode photo-0012.jpg","id":…,
///   "tid":…,"nice":10,"cpu":…}`: an item of the pipeline's queues, with the OS thread it ran on, that thread's nice
///   value and its CPU time so far (ns; a started/finished pair on one thread gives the item's CPU time).
///
/// Times are `DispatchTime` uptime nanoseconds. `scripts/desk-vs-peers --trace DIR` sets it and samples the
/// process's threads beside it; `scripts/desk-row-trace.py` reads both.
enum RowTrace {
    private static let output: Int32? = {
        guard let path = ProcessInfo.processInfo.environment["LANES_DESK_TRACE_ROWS"], !path.isEmpty else { return nil }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0o644)
        return fd >= 0 ? fd : nil
    }()

    /// Whether the trace is on.
    static var isOn: Bool { output != nil }

    /// Kept for the process's life: the observation of the core's events.
    private static let observation = Mutex<WorkEvents.Token?>(nil)

    /// Starts observing the pipeline's queues (once; nothing when the trace is off).
    static func start() {
        guard isOn else { return }
        observation.withLock { token in
            guard token == nil else { return }
            token = WorkEvents.observe { event in
                guard event.queue.hasPrefix("image"), event.queue != "image caller thread" else { return }
                let kind = switch event.kind {
                case .added: ""
                case .started: "started"
                case .finished: "finished"
                case .cancelled: "cancelled"
                }
                guard !kind.isEmpty else { return }
                var line = "{\"e\":\"\(kind)\",\"t\":\(event.time),\"q\":\(quoted(event.queue)),"
                line += "\"label\":\(quoted(event.label)),\"id\":\(event.itemID),"
                line += "\"tid\":\(threadID()),\"nice\":\(niceValue()),\"cpu\":\(threadCPU())}"
                write(line)
            }
        }
    }

    static func load(row: Int, priority: WorkPriority?, onScreen: Bool) {
        guard isOn else { return }
        let p = priority.map { "\"\($0)\"" } ?? "null"
        write("{\"e\":\"load\",\"t\":\(now()),\"row\":\(row),\"p\":\(p),\"screen\":\(onScreen)}")
    }

    static func shown(row: Int) {
        guard isOn else { return }
        write("{\"e\":\"shown\",\"t\":\(now()),\"row\":\(row)}")
    }

    static func frame(offset: Double) {
        guard isOn else { return }
        write("{\"e\":\"frame\",\"t\":\(now()),\"offset\":\(offset)}")
    }

    static func mark(_ name: String, row: Int? = nil) {
        guard isOn else { return }
        write("{\"e\":\(quoted(name)),\"t\":\(now())" + (row.map { ",\"row\":\($0)}" } ?? "}"))
    }

    // MARK: Internals

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    private static func write(_ line: String) {
        guard let output else { return }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(output, $0.baseAddress, $0.count) }   // O_APPEND: one line, whole
    }

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += "?"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// The kernel's id of the calling thread, from `/proc/thread-self` ("PID/task/TID"; `syscall` is variadic).
    private static func threadID() -> Int {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/thread-self", &buffer, buffer.count - 1)
        guard count > 0 else { return 0 }
        return Int(String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .split(separator: "/").last ?? "") ?? 0
    }

    private static func niceValue() -> Int32 {
        errno = 0
        let value = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        return errno == 0 ? value : 0
    }

    private static func threadCPU() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}
