import StowageFuzzing

/// The fuzz target for the decoding of every Storable type; see `StorableDecodingFuzzCheck`.
///
/// Built for libFuzzer by `Scripts/fuzz.sh`; an ordinary build replays the
/// input files and folders named on the command line.
@main
enum StorableDecodingFuzzer {
    static func main() {
        FuzzDriver.run(StorableDecodingFuzzCheck.self, fuzzingWith: testOneInput)
    }
}

/// libFuzzer's callback, under the name its library links against.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.testOneInput(StorableDecodingFuzzCheck.self, data, size)
}
