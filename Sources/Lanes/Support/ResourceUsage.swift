#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the process has used so far, from `getrusage(RUSAGE_SELF)` (all its threads): the one reading of it that
/// Lanes' benchmarks, tests and probes share. Package access: not part of the public API.
///
/// ```swift
/// let before = ResourceUsage.now()
/// // ... the work to measure ...
/// let cpu = ResourceUsage.now().cpuSeconds - before.cpuSeconds
/// ```
package struct ResourceUsage: Sendable {
    /// User and system CPU time, in seconds.
    package var cpuSeconds: Double
    /// Context switches, voluntary (a wait) and involuntary (preempted).
    package var contextSwitches: Int
    /// The peak resident set so far, in bytes.
    package var peakResidentBytes: Int

    /// The process's usage now.
    package static func now() -> ResourceUsage {
        var usage = rusage()
        #if canImport(Darwin)
        getrusage(RUSAGE_SELF, &usage)
        let residentUnit = 1  // bytes on Darwin
        #else
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let residentUnit = 1024  // kilobytes on Linux
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return ResourceUsage(
            cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime),
            contextSwitches: Int(usage.ru_nvcsw) + Int(usage.ru_nivcsw),
            peakResidentBytes: Int(usage.ru_maxrss) * residentUnit)
    }
}
