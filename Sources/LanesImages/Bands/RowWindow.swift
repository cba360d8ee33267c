/// The last `capacity` rows pulled from an upstream ``RowSource``, in a ring: a stage asks for row
/// `y` and the window pulls upstream rows up to `y` (one at a time, so nothing beyond the ring is held).
/// Rows older than `fetched - capacity` are gone; asking for one is a programming error.
final class RowWindow {
    let upstream: any RowSource
    let capacity: Int
    let rowBytes: Int
    /// Rows `0..<fetched` have been pulled; the last `capacity` of them are here.
    private(set) var fetched = 0
    private let memory: UnsafeMutableRawPointer

    init(upstream: any RowSource, capacity: Int) {
        self.upstream = upstream
        self.capacity = max(1, min(capacity, upstream.height))
        rowBytes = upstream.bytesPerRow
        memory = UnsafeMutableRawPointer.allocate(byteCount: self.capacity * rowBytes, alignment: 64)
    }

    deinit {
        memory.deallocate()
    }

    /// Bytes of the ring.
    var byteCount: Int { capacity * rowBytes }

    /// Row `y` (pulled from upstream first when it has not been yet).
    func row(_ y: Int) throws -> UnsafeMutablePointer<UInt8> {
        while fetched <= y {
            try upstream.readRows(1, into: memory + (fetched % capacity) * rowBytes, bytesPerRow: rowBytes)
            fetched += 1
        }
        precondition(y >= fetched - capacity, "row \(y) has left a \(capacity)-row window at \(fetched)")
        return (memory + (y % capacity) * rowBytes).assumingMemoryBound(to: UInt8.self)
    }
}
