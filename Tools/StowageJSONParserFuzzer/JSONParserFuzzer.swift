import StowageFuzzing

/// The fuzz target for the JSON parser and serializer; see `JSONParserFuzzCheck`.
///
/// Built for libFuzzer by `Scripts/fuzz.sh`; an ordinary build replays the
/// input files and folders named on the command line.
@main
enum JSONParserFuzzer {
    static func main() {
        FuzzDriver.run(JSONParserFuzzCheck.self, fuzzingWith: testOneInput)
    }
}

/// libFuzzer's callback, under the name its library links against.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.testOneInput(JSONParserFuzzCheck.self, data, size)
}
