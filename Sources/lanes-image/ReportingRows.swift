import LanesImages

/// Passes rows through from `upstream` unchanged, telling `rowsDone` how many have been read after every read: the
/// progress bar's view of a banded job (the last stage's rows are the output rows).
final class ReportingRows: RowStage {
    let upstream: any RowSource
    private let rowsDone: (Int) -> Void

    init(_ upstream: any RowSource, rowsDone: @escaping (Int) -> Void) {
        self.upstream = upstream
        self.rowsDone = rowsDone
    }

    var width: Int { upstream.width }
    var height: Int { upstream.height }
    var layout: PixelLayout { upstream.layout }
    var rowsRead: Int { upstream.rowsRead }
    var retainedBytes: Int { 0 }

    func readRows(_ count: Int, into destination: UnsafeMutableRawPointer, bytesPerRow: Int) throws {
        try upstream.readRows(count, into: destination, bytesPerRow: bytesPerRow)
        rowsDone(upstream.rowsRead)
    }
}

extension ReportingRows: OpacityReporting {
    /// The upstream's answer: an opaque file stays an RGB PNG when its rows pass through here.
    var isOpaque: Bool { (upstream as? any OpacityReporting)?.isOpaque ?? false }
}
