import Dispatch
import Lanes
import StocksKit

/// Plays a ``KeyScript`` against a ``StocksController`` on the main queue, with real timings, and reports the
/// figures when the script ends (or the app quits). No terminal needed: frames go to a virtual screen.
///
/// `@MainActor`, like the controller it drives.
///
/// ```swift
/// let runner = ScriptRunner(app: app, script: .demo) { figures in print(figures.report); exit(0) }
/// MainLoop.run { runner.start() }
/// ```
@MainActor
final class ScriptRunner {
    let app: StocksController
    let script: KeyScript
    private let finished: (RunFigures) -> Void
    private var index = 0
    private var done = false
    private var idleDeadline: DispatchTime?

    /// Prepares a run; `finished` gets the figures on the main queue.
    init(app: StocksController, script: KeyScript, finished: @escaping (RunFigures) -> Void) {
        self.app = app
        self.script = script
        self.finished = finished
    }

    /// Starts the app and the script (call on the main queue).
    func start() {
        app.onQuit = { [unowned self] in finish() }
        app.start()
        next()
    }

    private func next() {
        guard !done else { return }
        guard index < script.steps.count else { return finish() }
        let step = script.steps[index]
        index += 1
        switch step {
        case .key(let key):
            app.handle(key)
            after(milliseconds: 0)
        case .wait(let milliseconds):
            after(milliseconds: milliseconds)
        case .resize(let width, let height):
            app.resize(width: width, height: height)
            after(milliseconds: 0)
        case .idle:
            idleDeadline = .now() + .seconds(10)
            pollIdle()
        }
    }

    private func pollIdle() {
        guard !done else { return }
        if app.figures.inFlight == 0 || DispatchTime.now() >= idleDeadline ?? .now() {
            after(milliseconds: 20)  // let the last deliveries draw
        } else {
            DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(10)) { [self] in pollIdle() }
        }
    }

    private func after(milliseconds: Int) {
        DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { [self] in next() }
    }

    private func finish() {
        guard !done else { return }
        done = true
        app.draw()
        let figures = app.figures
        app.stop()
        finished(figures)
    }
}
