import Dispatch
import Foundation
import Lanes
import LanesAppSupport
import StocksKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Entry point of the `stocks` terminal app. It runs on the process's main thread with ``Lanes/MainLoop`` (not
/// `dispatchMain()`, which on Linux would hand the main queue, and so the controller, to a worker thread).
///
/// ```swift
/// // main.swift: synchronous top-level code, on the main thread
/// exit(StocksMain.run(CommandLine.arguments))
/// ```
@MainActor
public enum StocksMain {
    /// Runs the app on the main thread until it quits; returns its exit status.
    public static func run(_ arguments: [String]) -> Int32 {
        var options: AppOptions
        do {
            options = try AppOptions(arguments: Array(arguments.dropFirst()))
        } catch {
            printError("stocks: \(error)\n\n\(AppOptions.usage)")
            return 2
        }
        if options.showsHelp {
            print(AppOptions.usage)
            return 0
        }
        if let path = options.traceFile,
           let reason = TraceRecorder.unwritableReason(for: URL(fileURLWithPath: path)) {
            printError("stocks: cannot write the trace to " + TerminalText.sanitized(path) + ": " + reason)
            return 1
        }
        if options.script == nil && !TerminalSession.isInteractive {
            // No terminal (a pipe, CI, an editor's run button): play the built-in demo instead of failing, so the
            // command always shows what Lanes does.
            printError("""
                stocks: standard input/output is not a terminal, so the full-screen browser cannot start;
                playing the built-in demo session instead (`--demo --naive` plays it with the work on the main queue).
                """)
            options.script = .demo
        }
        let data = StockData.load(options)
        for error in data.errors.prefix(20) { printError("stocks: " + TerminalText.sanitized(error.description)) }
        if data.errors.count > 20 { printError("stocks: … and \(data.errors.count - 20) more data errors") }
        if data.nullRows > 0 { printError("stocks: \(data.nullRows) rows without a price (null) skipped") }
        if data.universe.count == 0 {
            printError("stocks: no stock data loaded")
            return 1
        }
        let trace = options.traceFile.map { TraceRecorder(outputURL: URL(fileURLWithPath: $0)) }
        trace?.start()
        if let script = options.script {
            return runScript(script, options: options, data: data, trace: trace)
        }
        return runInteractive(options: options, data: data, trace: trace)
    }

    private static func runScript(
        _ source: AppOptions.ScriptSource, options: AppOptions, data: StockData, trace: TraceRecorder?
    ) -> Int32 {
        let script: KeyScript
        switch source {
        case .demo: script = .demo
        case .file(let path):
            do {
                script = try KeyScript(parsing: try String(contentsOfFile: path, encoding: .utf8))
            } catch {
                printError("stocks: " + TerminalText.sanitized("\(path): \(error)"))
                return 1
            }
        }
        print("stocks \(options.mode.rawValue): \(data.summary), screen \(options.screenWidth)x\(options.screenHeight), \(script.steps.count) script steps")
        let app = StocksController(
            universe: data.universe, mode: options.mode, width: options.screenWidth, height: options.screenHeight,
            title: "stocks · \(data.summary)") { _ in }
        if !data.errors.isEmpty { app.notice = "\(data.errors.count) data errors" }
        trace?.recordHitches(from: app.monitor)
        var status: Int32 = 0
        let runner = ScriptRunner(app: app, script: script) { figures in
            if options.printsScreen, let frame = app.lastFrame { print(frame.text + "\n") }
            print(figures.report)
            status = finishTrace(trace) ? 0 : 1
            MainLoop.stop()
        }
        MainLoop.run { runner.start() }
        return status
    }

    private static func runInteractive(options: AppOptions, data: StockData, trace: TraceRecorder?) -> Int32 {
        let terminal: TerminalSession
        do {
            terminal = try TerminalSession.enter()
        } catch {
            printError("stocks: \(error)")
            return 1
        }
        let size = TerminalSession.size
        let app = StocksController(
            universe: data.universe, mode: options.mode, width: size.width, height: size.height,
            title: "stocks · \(data.summary)") { frame in terminal.show(frame) }
        if !data.errors.isEmpty { app.notice = "\(data.errors.count) data errors (first: \(data.errors[0]))" }
        trace?.recordHitches(from: app.monitor)
        let exitStatus = LockedValue<Int32?>(nil)
        let quit: @MainActor (Int32) -> Void = { status in
            let first = exitStatus.withLock { recorded -> Bool in
                guard recorded == nil else { return false }
                recorded = status
                return true
            }
            guard first else { return }
            app.stop()
            restoreTerminal()
            let written = finishTrace(trace)
            if !written && status == 0 {
                exitStatus.withLock { $0 = 1 }
            }
            MainLoop.stop()
        }
        app.onQuit = { quit(0) }
        let decoder = LockedValue(KeyDecoder())
        // The input and signal sources deliver on the main queue, which MainLoop drains on the main thread.
        let input = ReadabilitySource(fileDescriptor: STDIN_FILENO, label: "keys", onMain: { readable in
            switch readable.read() {
            case .bytes(let bytes):
                for key in decoder.withLock({ $0.decode(bytes) }) { app.handle(key) }
            case .endOfFile, .failed:
                quit(0)
            case .wouldBlock:
                break
            }
        })
        let signals = SignalSource(signals: [SIGINT, SIGTERM, SIGHUP, SIGWINCH], label: "signals", onMain: { number in
            if number == SIGWINCH {
                let size = TerminalSession.size
                terminal.invalidate()
                app.resize(width: size.width, height: size.height)
            } else {
                quit(128 + number)
            }
        })
        MainLoop.run { app.start() }
        // The sources lived as long as the loop ran.
        withExtendedLifetime((input, signals)) {}
        return exitStatus.withLock { $0 } ?? 0
    }

    /// Writes the trace, if any; false (after a one-line message) when it could not be written.
    private static func finishTrace(_ trace: TraceRecorder?) -> Bool {
        guard let trace else { return true }
        let path = TerminalText.sanitized(trace.outputURL?.path ?? "")
        do {
            try trace.finish()
            printError("stocks: trace written to \(path)")
            return true
        } catch {
            let reason = trace.outputURL.flatMap { TraceRecorder.unwritableReason(for: $0) }
                ?? (error as NSError).localizedDescription
            printError("stocks: cannot write the trace to \(path): " + TerminalText.sanitized(reason))
            return false
        }
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
