import Foundation

// The fuzzer's entry point: libFuzzer's driver runs `fuzzOneInput` on every input it tries,
// and FUZZ_TARGET chooses what is fuzzed. (Our own main calls the driver, because SwiftPM
// names an executable's main itself.)

/// libFuzzer's driver (in the runtime `-sanitize=fuzzer` links).
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// The target named by FUZZ_TARGET, read once.
let target: @Sendable (Data) -> Void = {
    let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""
    guard let target = Targets.all[name] else {
        FileHandle.standardError.write(Data("FUZZ_TARGET must be one of \(Targets.all.keys.sorted().joined(separator: ", "))\n".utf8))
        exit(2)
    }
    return target
}()

var argumentCount = CommandLine.argc
var arguments = CommandLine.unsafeArgv
exit(
    runFuzzerDriver(&argumentCount, &arguments) { start, count in
        target(start.map { Data(bytes: $0, count: count) } ?? Data())
        return 0
    })
