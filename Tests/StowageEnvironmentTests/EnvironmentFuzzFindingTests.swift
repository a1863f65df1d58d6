#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StowageEnvironment
import Testing
import StowageTestSupport

/// What the `environment-values` and `dotenv-parser` fuzz targets found; the
/// inputs are in `Fuzz/Regressions/environment-values` and `Fuzz/Regressions/dotenv-parser`.
struct EnvironmentFuzzFindingTests {
    let files = TemporaryDirectory()

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

    /// A date's text was parsed by a format style that ignores what follows
    /// the date and reads years of any length: the text below, as `[Date]`
    /// separated by `|`, read as a date in the year 308021, which was written
    /// back for a child process as text that read as another date (found by
    /// the environment-values fuzz target in `.ci/run`; the input is
    /// `Fuzz/Regressions/environment-values/six-digit-year-then-junk`).
    @Test func aDateInASixDigitYearOrFollowedByOtherTextIsAnErrorNamingTheVariable() throws {
        let options = EnvironmentStore.Options(secrets: .none, arraySeparator: "|")
        for text in [#"308021-01-01T00:00:00.000Z",""#, "2024-05-01T12:00:00Zjunk", "2024-05-01T12:00:00Z|100000-01-01T00:00:00Z"] {
            let store = EnvironmentStore(variables: ["HISTORY": text, "KEPT": "2024-05-01T12:00:00Z"], options: options)
            let error = #expect(throws: StorageError.self) { _ = try store.value(forKey: "history", as: [Date].self) }
            #expect(error?.message.contains("HISTORY") == true)
            #expect(error?.message.contains("ISO 8601") == true)
            #expect(try store.value(forKey: "kept", as: Date.self) == Date(timeIntervalSince1970: 1_714_564_800))
        }
    }

    /// A date that text can not hold is refused when set, naming the key,
    /// instead of being handed to a child process as text that reads as another date.
    @Test func writingADateWithoutAnISO8601FormIsRefusedNamingTheKey() throws {
        let store = EnvironmentStore(variables: ["HISTORY": "2024-05-01T12:00:00Z"])
        let beyond = Date(timeIntervalSinceReferenceDate: 3_092_549_673_600)
        let set = #expect(throws: StorageError.self) { try store.set([Date.distantPast, beyond], forKey: "history") }
        #expect(set?.code == .encodingFailed)
        #expect(set?.key == "history")
        #expect(store.lastError?.key == "history")
        let swapped = #expect(throws: StorageError.self) {
            _ = try store.replaceStoredValues(expecting: [:], with: ["history": .date(beyond), "other": 1], .granted)
        }
        #expect(swapped?.key == "history")
        #expect(store.environmentForChildProcess()["HISTORY"] == "2024-05-01T12:00:00Z")
        #expect(store.environmentForChildProcess()["OTHER"] == nil)
        try store.set([Date.distantFuture], forKey: "history")
        #expect(try store.value(forKey: "history", as: [Date].self) == [.distantFuture])
    }
}
