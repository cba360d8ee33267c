/// How many loop iterations pass between two calls of an `isCancelled` closure.
///
/// Every long loop in StocksKit polls its `isCancelled` closure on iteration 0 and then
/// once every `cancellationStride` iterations, so a cancelled job stops quickly without
/// paying for a closure call on every step.
let cancellationStride = 256

/// Throws `CancellationError` when `iteration` is a polling point and `isCancelled()` is true.
@inline(__always)
func checkCancellation(_ iteration: Int, _ isCancelled: () -> Bool) throws(CancellationError) {
    if iteration % cancellationStride == 0, isCancelled() {
        throw CancellationError()
    }
}
