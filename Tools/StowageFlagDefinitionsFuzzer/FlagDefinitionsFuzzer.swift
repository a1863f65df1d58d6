import Stowage
import StowageFuzzing

/// The fuzz target for flag definitions in flagd's format; see `FlagDefinitionsFuzzCheck`.
///
/// Built for libFuzzer by `Scripts/fuzz.sh`; an ordinary build replays the
/// input files and folders named on the command line.
@main
enum FlagDefinitionsFuzzer {
    static func main() {
        // Every refused definition is reported; millions of them would only slow the campaign.
        StowageReport.handler = { _ in }
        FuzzDriver.run(FlagDefinitionsFuzzCheck.self, fuzzingWith: testOneInput)
    }
}

/// libFuzzer's callback, under the name its library links against.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.testOneInput(FlagDefinitionsFuzzCheck.self, data, size)
}
