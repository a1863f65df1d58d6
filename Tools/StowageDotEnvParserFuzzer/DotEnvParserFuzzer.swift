import StowageFuzzing

/// The fuzz target for the .env parser; see `DotEnvParserFuzzCheck`.
///
/// Built for libFuzzer by `Scripts/fuzz.sh`; an ordinary build replays the
/// input files and folders named on the command line.
@main
enum DotEnvParserFuzzer {
    static func main() {
        FuzzDriver.run(DotEnvParserFuzzCheck.self, fuzzingWith: testOneInput)
    }
}

/// libFuzzer's callback, under the name its library links against.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.testOneInput(DotEnvParserFuzzCheck.self, data, size)
}
