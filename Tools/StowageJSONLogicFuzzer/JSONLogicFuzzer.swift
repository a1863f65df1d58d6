import StowageFuzzing

/// The fuzz target for flag targeting's JsonLogic evaluator; see `JSONLogicFuzzCheck`.
///
/// Built for libFuzzer by `Scripts/fuzz.sh`; an ordinary build replays the
/// input files and folders named on the command line.
@main
enum JSONLogicFuzzer {
    static func main() {
        FuzzDriver.run(JSONLogicFuzzCheck.self, fuzzingWith: testOneInput)
    }
}

/// libFuzzer's callback, under the name its library links against.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.testOneInput(JSONLogicFuzzCheck.self, data, size)
}
