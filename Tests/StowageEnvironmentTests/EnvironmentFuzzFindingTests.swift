#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StowageEnvironment
import Testing

/// What the `environment-values` and `dotenv-parser` fuzz targets found; the
/// inputs are in `Fuzz/Regressions/environment-values` and `Fuzz/Regressions/dotenv-parser`.
struct EnvironmentFuzzFindingTests {
    let files = TemporaryFiles()

    private func read<Value: Storable>(_ text: String, as type: Value.Type) throws -> Value? {
        try EnvironmentStore(variables: ["VALUE": text]).value(forKey: "value", as: type)
    }

    /// Whitespace was trimmed by `Character`, and CR LF is one character, equal
    /// to neither "\r" nor "\n": a value ending in CR LF did not read, though
    /// one ending in LF did.
    @Test func textEndingInCRLFReadsAsTextEndingInLFDoes() throws {
        #expect(try read("42\r\n", as: Int.self) == 42)
        #expect(try read("\r\n0x1F \r\n", as: Int.self) == 31)
        #expect(try read("yes\r\n", as: Bool.self) == true)
        #expect(try read(" 1.5\r\n", as: Double.self) == 1.5)
        #expect(try read("AAEC\r\n", as: Data.self) == Data([0, 1, 2]))
        #expect(try read("1,2\r\n", as: [Int].self) == [1, 2])
        #expect(try read("a , b\r\n", as: [String].self) == ["a", "b"])
        #expect(try read("\r\n", as: Int?.self) == .some(nil))
        #expect(try read("x\r\n", as: String.self) == "x\r\n")
    }

    /// Each `A=${A}${A}` line doubled the value, so a .env file of a few
    /// hundred bytes asked for gigabytes and never finished loading.
    @Test func expansionsStopAtTheLengthOfAnEnvironmentVariable() throws {
        let doubling = "A=0123456789abcdef\n" + String(repeating: "A=${A}${A}\n", count: 40)
        let error = #expect(throws: StorageError.self) {
            _ = try EnvironmentStore(dotEnv: .init(url: files.write(doubling)), variables: [:])
        }
        #expect(error?.code == .invalidDotEnv)
        #expect(error?.message.contains("line 15") == true)
        #expect(error?.message.contains("131072 bytes") == true)

        // Up to the limit, expansions build the value as before.
        let filling = "A=" + String(repeating: "x", count: 65_536) + "\nB=${A}${A}\n"
        let store = try EnvironmentStore(dotEnv: .init(url: files.write(filling)), variables: [:])
        #expect(try store.value(forKey: "b", as: String.self)?.utf8.count == 131_072)
    }

    struct Event: Codable, Storable, Equatable {
        var at: Date
    }

    /// A date in a five-digit year reads from JSON text; writing it back for a
    /// child process gave empty text while the JSON serializer refused every
    /// year beyond 9999.
    @Test func aValueWithAFiveDigitYearIsWrittenBackForAChildProcess() throws {
        let text = #"{"at":"10491-01-01T00:00:00.000Z"}"#
        let store = EnvironmentStore(variables: ["EVENT": text])
        let event = try #require(try store.value(forKey: "event", as: Event.self))
        try store.set(event, forKey: "event")
        #expect(store.environmentForChildProcess()["EVENT"] == text)
    }
}
