import StowageFuzzing

/// The fuzz target for the environment store's value parsing; see `EnvironmentValueFuzzCheck`.
///
/// Built for libFuzzer by `Scripts/fuzz.sh`; an ordinary build replays the
/// input files and folders named on the command line.
@main
enum EnvironmentValueFuzzer {
    static func main() {
        FuzzDriver.run(EnvironmentValueFuzzCheck.self, fuzzingWith: testOneInput)
    }
}

/// libFuzzer's callback, under the name its library links against.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.testOneInput(EnvironmentValueFuzzCheck.self, data, size)
}
