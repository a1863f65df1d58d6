#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `main` of every fuzz target executable, and its libFuzzer callback.
///
/// Built by `Scripts/fuzz.sh` (with `-sanitize=fuzzer,address -DFUZZING`),
/// `main` hands the command line to libFuzzer, which then calls the
/// executable's `LLVMFuzzerTestOneInput` with each input it makes. In an
/// ordinary build it replays the files and folders named on the command line
/// through the same check, without libFuzzer, to reproduce a finding under a
/// debugger.
///
/// libFuzzer is started through `LLVMFuzzerRunDriver` rather than its own
/// `main`, because SwiftPM links every executable with a `main` of its own.
/// Each executable still exports `LLVMFuzzerTestOneInput` under that name,
/// which libFuzzer's library needs to link.
package enum FuzzDriver {
    /// The C function libFuzzer calls with each input.
    package typealias Callback = @convention(c) (_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt

    /// Fuzzes with `testOneInput` (in a fuzzing build) or replays the command line's inputs through `check`.
    package static func run<Check: FuzzCheck>(_ check: Check.Type, fuzzingWith testOneInput: Callback) -> Never {
        #if FUZZING
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
        #else
        exit(replay(Check(), paths: Array(CommandLine.arguments.dropFirst())))
        #endif
    }

    /// Runs `check` over one input from libFuzzer; a broken property traps, so libFuzzer keeps the input.
    package static func testOneInput<Check: FuzzCheck>(_ check: Check.Type, _ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        do {
            try Check().check(Array(UnsafeBufferPointer(start: data, count: size)))
        } catch {
            fatalError("\(Check.name): \(error)")
        }
        return 0
    }

    /// Runs `check` over every file named, or found directly in a folder
    /// named, and gives the exit status: 0 when every property held.
    static func replay<Check: FuzzCheck>(_ check: Check, paths: [String]) -> Int32 {
        guard !paths.isEmpty else {
            print("usage: \(CommandLine.arguments.first ?? Check.name) <input file or folder>...")
            print("Replays inputs through the \(Check.name) check; Scripts/fuzz.sh builds this target for libFuzzer.")
            return 2
        }
        var failures = 0
        var count = 0
        for file in paths.flatMap(filesIn) {
            guard let contents = FileManager.default.contents(atPath: file) else {
                print("\(file): could not be read")
                failures += 1
                continue
            }
            count += 1
            do {
                try check.check(Array(contents))
            } catch {
                print("\(file): \(error.description)")
                failures += 1
            }
        }
        print("\(Check.name): replayed \(count) inputs, \(failures) failed.")
        return failures == 0 ? 0 : 1
    }

    private static func filesIn(_ path: String) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return [path] }
        return names.filter { !$0.hasPrefix(".") }.sorted().map { path + "/" + $0 }
    }
}

#if FUZZING
/// libFuzzer's entry point for a program that has a `main` of its own.
@_extern(c, "LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ testOneInput: FuzzDriver.Callback
) -> CInt
#endif
