// What LanesGLib's doc comments' examples assume of a GTK app: its application, loop, source and status bar.
@MainActor final class StatusBar { func refresh() {} }
@MainActor final class Activity { func noteWork() {} }
@MainActor let statusBar = StatusBar()
@MainActor let activity = Activity()
@MainActor func tick() {}
@MainActor let source = MainQueueSource()
@MainActor let loop = g_main_loop_new(nil, 0)
@MainActor let app = gtk_application_new("org.example.Photos", G_APPLICATION_DEFAULT_FLAGS)
