import CGtk4
import Foundation
import LanesGLib

// lanes-desk: the GTK4 desktop app. A synchronous main: GLibMain runs g_application_run on this (the main) thread
// with libdispatch's main queue bridged in, so WorkQueue.main and @MainActor work run here between GTK's sources.

/// When the process started its work (the first screen's time is counted from here).
let launchedAt = DispatchTime.now().uptimeNanoseconds

#if canImport(Glibc)
// Before any pool thread allocates: freed decode buffers collect in fewer malloc arenas (MallocArenas).
MallocArenas.cap()
#endif
// Before GTK starts: the Cairo renderer asked for opens no GL display (CairoWithoutGL).
CairoWithoutGL.apply()

var parsed: Options
do {
    parsed = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch let error as OptionError {
    if error.isHelp {
        print(error.message)
        exit(0)
    }
    FileHandle.standardError.write(Data("lanes-desk: \(error.message)\n".utf8))
    exit(2)
}

// `--script hostile` without a folder builds its hostile folder (HostileFolder) and removes it at exit.
var hostileFolder: HostileFolder?
if parsed.script == .hostile, parsed.folder == nil, parsed.urlsFile == nil {
    do {
        hostileFolder = try HostileFolder.build()
        parsed.folder = hostileFolder?.path
        parsed.builtHostileFolder = true
    } catch {
        FileHandle.standardError.write(Data("lanes-desk: cannot build the hostile folder: \(error)\n".utf8))
        exit(1)
    }
}
let options = parsed

let library: PhotoLibrary
do {
    if let folder = options.folder {
        library = try PhotoLibrary.folder(folder)
    } else if let file = options.urlsFile {
        library = try PhotoLibrary.urls(fromFile: file)
    } else {
        library = try PhotoLibrary.bundled(count: options.count)
    }
} catch let error as OptionError {
    FileHandle.standardError.write(Data("lanes-desk: \(error.message)\n".utf8))
    hostileFolder?.remove()
    exit(1)
}

let application = gtk_application_new("org.lanes.Desk", G_APPLICATION_NON_UNIQUE)!
// Widgets exist only after GTK is initialised, which g_application_run does before "activate".
var app: DeskApp?
onSignal(raw(application), "activate") {
    let desk = DeskApp(options: options, library: library)
    app = desk
    desk.activate(application)
}
// GApplication sees only the program name: the options are ours.
// Main-queue work about to run is activity for the app's idle watch (the status bar's monitor pings only while awake).
let status = GLibMain.runApplication(raw(application)!, arguments: [CommandLine.arguments[0]]) {
    app?.mainQueueWillDrain()
}
g_object_unref(raw(application))
hostileFolder?.remove()
exit(status)
