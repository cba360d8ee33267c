import CGtk4
import Foundation
import Lanes
import LanesGLib

// gtk-hello: a window with a button and a label. The button counts primes on a background queue; the count comes back
// to the label on the main thread, through LanesGLib, which runs the main queue inside GTK's loop.
//
//   swift run gtk-hello            opens the window
//   swift run gtk-hello --press    also presses the button once the window is up (scripts/examples does this)

let work = WorkQueue("work", maxConcurrency: 2)

/// The number of primes below `limit` (a sieve): slow enough to belong off the main thread. It checks for
/// cancellation as it goes, so a second press stops the first count.
func countPrimes(below limit: Int, _ ctx: WorkContext) throws -> Int {
    var composite = [Bool](repeating: false, count: limit)
    var count = 0
    for n in 2..<limit {
        if n % 65_536 == 0 { try ctx.checkCancellation() }
        guard !composite[n] else { continue }
        count += 1
        for multiple in stride(from: n * n, to: limit, by: n) { composite[multiple] = true }
    }
    return count
}

/// A widget as the GTK type a call expects (GTK's C casts, `GTK_WINDOW(widget)`, are macros Swift does not import).
func cast<T>(_ widget: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<T> {
    UnsafeMutablePointer(OpaquePointer(widget))
}

@MainActor
final class HelloWindow {
    let label: UnsafeMutablePointer<GtkWidget>
    let button: UnsafeMutablePointer<GtkWidget>
    private var counting: WorkItem<Int>?

    init(application: UnsafeMutablePointer<GtkApplication>) {
        let window = gtk_application_window_new(application)!
        gtk_window_set_title(cast(window), "Lanes hello")
        gtk_window_set_default_size(cast(window), 480, 160)
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 16)!
        gtk_widget_set_margin_top(box, 24)
        gtk_widget_set_margin_bottom(box, 24)
        gtk_widget_set_margin_start(box, 24)
        gtk_widget_set_margin_end(box, 24)
        button = gtk_button_new_with_label("Count the primes below 5,000,000")!
        label = gtk_label_new("Press the button.")!
        gtk_box_append(cast(box), button)
        gtk_box_append(cast(box), label)
        gtk_window_set_child(cast(window), box)
        gtk_window_present(cast(window))
    }

    /// The button's action: count off the main thread, show the result on it.
    func count() {
        counting?.cancel()                          // a second press replaces the first count
        show("Counting…")
        let item = work.add(label: "primes") { ctx in try countPrimes(below: 5_000_000, ctx) }
        counting = item
        item.onMainCompletion { [weak self] result in  // on the main thread, as @MainActor code
            guard let self, item == self.counting else { return }   // a later press replaced it
            switch result {
            case .success(let primes): self.show("\(primes) primes below 5,000,000")
            case .failure(let error) where error is CancellationError: break
            case .failure(let error): self.show("Failed: \(error)")
            }
        }
    }

    private func show(_ text: String) {
        gtk_label_set_text(OpaquePointer(label), text)   // GtkLabel is opaque to Swift
        FileHandle.standardOutput.write(Data("label: \(text) (main thread: \(Thread.isMainThread))\n".utf8))
    }
}

var helloWindow: HelloWindow?   // the one window, kept alive while the app runs (top-level: on the main actor)

// GTK's signals call C functions; the window reaches them as their user data. Both run on the main thread.
let onClicked: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
    MainActor.assumeIsolated { Unmanaged<HelloWindow>.fromOpaque(data!).takeUnretainedValue().count() }
}
let onActivate: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { application, _ in
    MainActor.assumeIsolated {
        let hello = HelloWindow(application: application!.assumingMemoryBound(to: GtkApplication.self))
        helloWindow = hello
        let data = Unmanaged.passUnretained(hello).toOpaque()
        g_signal_connect_data(hello.button, "clicked", unsafeBitCast(onClicked, to: GCallback.self), data, nil,
                              GConnectFlags(rawValue: 0))
        if CommandLine.arguments.contains("--press") { gtk_widget_activate(hello.button) }
    }
}
let application = gtk_application_new("org.example.LanesHello", G_APPLICATION_NON_UNIQUE)!
g_signal_connect_data(application, "activate", unsafeBitCast(onActivate, to: GCallback.self), nil, nil,
                      GConnectFlags(rawValue: 0))
// Top-level code runs on the main thread: GLibMain runs GTK's loop here with the main queue bridged in.
let status = MainActor.assumeIsolated {
    GLibMain.runApplication(UnsafeMutableRawPointer(application), arguments: [CommandLine.arguments[0]])
}
exit(status)
