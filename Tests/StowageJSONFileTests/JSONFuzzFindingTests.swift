#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StowageJSON
import StowageJSONFile
import Testing

/// What the `storable-decoding` fuzz target found in the JSON serializer; the
/// inputs are in `Fuzz/Regressions/storable-decoding`.
struct JSONFuzzFindingTests {
    /// A date outside the years 1 through 9999 was written as text that no
    /// reader here reads back as a date ("-4712-01-01T12:00:00.000Z" for a NaN
    /// time), so the value written could not be read.
    ///
    /// The arguments are times since 2001, not dates: describing a date whose
    /// time is NaN traps in Foundation, and the test library describes its arguments.
    @Test(arguments: [Double.nan, .infinity, -.infinity, -1e12, 1e12, -63_114_076_800.001])
    func aDateWithoutAnISO8601FormIsAnErrorNamingItsPath(secondsSince2001: Double) {
        let date = StoredValue.date(Date(timeIntervalSinceReferenceDate: secondsSince2001))
        let error = #expect(throws: StorageError.self) { _ = try JSONSerializer().serialize(["when": [date]]) }
        #expect(error?.code == .encodingFailed)
        #expect(error?.message.contains("when") == true)
        #expect(error?.message.contains("ISO 8601") == true)
    }

    @Test func datesAtTheEndsOfTheRangeAreWrittenAndReadBack() throws {
        let bytes = try JSONSerializer(formatting: .compact).serialize([.date(.distantPast), .date(.distantFuture)])
        #expect(String(decoding: bytes, as: UTF8.self) == #"["0001-01-01T00:00:00.000Z","4001-01-01T00:00:00.000Z"]"#)
        guard case .array(let texts) = try JSONParser().parse(bytes) else {
            Issue.record("an array is read back as an array")
            return
        }
        #expect(try texts.map { try Date(storedValue: $0) } == [.distantPast, .distantFuture])
    }
}
