#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StowageEnvironment
import Testing

/// Dates in variables: read, written back for a child process, refused
/// where text can not hold them. Found by the `environment-values` fuzz
/// target (inputs under `Tools/Fuzz/Regressions/environment-values`).
struct EnvironmentDateTests {
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
    /// `Tools/Fuzz/Regressions/environment-values/six-digit-year-then-junk`).
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
