import CGtk4
import Dispatch
import Foundation
import Lanes
import LanesGLib

// Runs a GLib main loop with the bridge and measures it, then prints one JSON object:
//   main_thread_jobs / off_main_jobs     mixed DispatchQueue.main, WorkQueue.main and @MainActor jobs
//   order_violations                      jobs posted in order from one thread that ran out of order
//   latency_p50_ms / latency_p99_ms       enqueue (from a background thread) → run on main
//   flood_frames_per_s                    a priority-120 (GTK redraw) 16 ms timeout while the main queue is flooded
//   flood_jobs                            flood jobs that ran meanwhile (the flood did run)
//   idle_cpu_pct                          CPU used by the idle loop over `--idle-ms`
//   nested_ran_out_of_turn                a nested loop inside a main-queue job ran another main-queue job (0)
//   nested_loop_cpu_pct                   CPU used by that nested loop (a spin on the eventfd would be ~100)
// Usage: lanes-glib-probe [--priority N] [--idle-ms N]

var priority = MainQueueSource.defaultPriority
var idleMilliseconds = 1000
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--priority": priority = Int32(arguments.popFirst() ?? "") ?? priority
    case "--idle-ms": idleMilliseconds = Int(arguments.popFirst() ?? "") ?? idleMilliseconds
    default:
        FileHandle.standardError.write(Data("lanes-glib-probe: unknown argument \(argument)\n".utf8))
        exit(2)
    }
}

let mainThread = pthread_self()
let report = ProbeReport()

GLibMain.runLoop(priority: priority) { quit in
    Task { @MainActor in
        await report.runAll(idleMilliseconds: idleMilliseconds, isMainThread: { pthread_equal(pthread_self(), mainThread) != 0 })
        quit()
    }
}
print(report.json())
