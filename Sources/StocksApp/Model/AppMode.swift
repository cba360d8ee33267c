/// How the app does its work.
enum AppMode: String, Sendable, Equatable {
    /// Through Lanes: processing lanes, a content loader for row charts, results shipped to the main queue.
    case lanes
    /// The talk's "before": analysis and chart rendering synchronously on the main queue.
    case naive
}
