import Foundation
import Testing

/// Runs one of this package's executables (built beside the test bundle) as a child process, with a deadline.
enum ChildProcess {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        var timedOut: Bool
    }

    /// The folder holding the package's built products (the test runner lives there too).
    static var productsDirectory: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }

    /// Runs `product` with `arguments`, killing it after `deadline` seconds.
    static func run(
        _ product: String, _ arguments: [String], environment extra: [String: String] = [:], deadline: Double
    ) throws -> Output {
        let process = Process()
        process.executableURL = product.hasPrefix("/") ? URL(fileURLWithPath: product) : productsDirectory.appending(path: product)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let killed = KillFlag()
        let timer = DispatchWorkItem {
            if process.isRunning {
                killed.set()
                process.terminate()
            }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + deadline, execute: timer)
        // Read both pipes to the end before waiting: a full pipe would stall the child.
        let errData = LockedData()
        let errReader = Thread { errData.set(err.fileHandleForReading.readDataToEndOfFile()) }
        errReader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        timer.cancel()
        while !errData.isSet { usleep(1000) }
        return Output(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData.value, as: UTF8.self), timedOut: killed.isSet)
    }

    /// The last line of `stdout` that parses as a JSON object.
    static func json(_ output: Output) throws -> [String: Any] {
        for line in output.stdout.split(separator: "\n").reversed() {
            if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] {
                return object
            }
        }
        Issue.record("no JSON in output (status \(output.status)); stderr: \(output.stderr.suffix(2000))")
        throw CancellationError()
    }
}

private final class KillFlag: @unchecked Sendable {
    // Guarded by `lock`.
    private var killed = false
    private let lock = NSLock()
    func set() { lock.withLock { killed = true } }
    var isSet: Bool { lock.withLock { killed } }
}

private final class LockedData: @unchecked Sendable {
    // Guarded by `lock`.
    private var data: Data?
    private let lock = NSLock()
    func set(_ value: Data) { lock.withLock { data = value } }
    var isSet: Bool { lock.withLock { data != nil } }
    var value: Data { lock.withLock { data ?? Data() } }
}
