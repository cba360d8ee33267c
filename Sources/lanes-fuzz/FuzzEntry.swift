#if LANES_FUZZ
import Foundation

/// libFuzzer's driver, linked in by `-sanitize=fuzzer` (declared in libFuzzer's `FuzzerInterface.h`,
/// which Swift cannot import without a C target of its own, so the symbol is named here).
@_silgen_name("LLVMFuzzerRunDriver")
func llvmFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// The libFuzzer entry point: one input through ``FuzzTarget/run(_:)``.
@_cdecl("LLVMFuzzerTestOneInput")
public func lanesFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = FuzzTarget.run(bytes)
    return 0
}

/// libFuzzer's own mutator, for use inside a custom one.
@_silgen_name("LLVMFuzzerMutate")
func llvmFuzzerMutate(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int) -> Int

/// libFuzzer's mutations, then (for half of them, so bad CRCs stay covered) PNG chunk CRCs
/// recomputed, so mutated PNGs get past libpng's CRC checks into the code behind them.
@_cdecl("LLVMFuzzerCustomMutator")
public func lanesFuzzCustomMutator(_ data: UnsafeMutablePointer<UInt8>?, _ size: Int, _ maxSize: Int,
                                   _ seed: UInt32) -> Int {
    guard let data else { return 0 }
    let mutated = llvmFuzzerMutate(data, size, maxSize)
    if seed & 1 == 0 {
        PNGChunkRepair.fixCRCs(UnsafeMutableBufferPointer(start: data, count: mutated))
    }
    return mutated
}

/// Hands the command line to libFuzzer. SwiftPM renames this module's entry point and points
/// the linker's `main` at it, so libFuzzer's own `main` is never used; its driver is called instead.
func fuzzMain() -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    let status = llvmFuzzerRunDriver(&argc, &argv) { data, size in lanesFuzzTestOneInput(data, size) }
    exit(status)
}
#endif
