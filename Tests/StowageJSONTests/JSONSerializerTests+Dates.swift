#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage
import StowageJSON
import Testing

/// Dates the serializer can and can not write, found by the
/// `storable-decoding` fuzz target (inputs in `Tools/Fuzz/Regressions/storable-decoding`).
extension JSONSerializerTests {
    /// A date outside the years 0 through 99,999 was written as text that no
    /// reader here reads back as a date ("-4712-01-01T12:00:00.000Z" for a NaN
    /// time), so the value written could not be read.
    ///
    /// The arguments are times since 2001, not dates: describing a date whose
    /// time is NaN traps in Foundation, and the test library describes its arguments.
    @Test(arguments: [Double.nan, .infinity, -.infinity, -1e12, 4e12, -63_145_699_200.001, 3_092_549_673_599.9995])
    func aDateWithoutAnISO8601FormIsAnErrorNamingItsPath(secondsSince2001: Double) {
        let date = StoredValue.date(Date(timeIntervalSinceReferenceDate: secondsSince2001))
        let error = #expect(throws: StorageError.self) { _ = try JSONSerializer().serialize(["when": [date]]) }
        #expect(error?.code == .encodingFailed)
        #expect(error?.message.contains("when") == true)
        #expect(error?.message.contains("ISO 8601") == true)
    }

    /// The years 0 and 99,999 are written, and read back; so is a five-digit
    /// year, which the parser reads (the environment-values fuzz target found
    /// one refused by a first, narrower range of years 1 through 9999).
    @Test func datesAtTheEndsOfTheRangeAreWrittenAndReadBack() throws {
        let texts = [
            "0000-01-01T00:00:00.000Z", "0001-01-01T00:00:00.000Z", "4001-01-01T00:00:00.000Z", "10491-01-01T00:00:00.000Z",
            "99999-12-31T23:59:59.999Z",
        ]
        let dates = try texts.map { try Date(storedValue: .string($0)) }
        #expect(dates[1] == .distantPast)
        #expect(dates[2] == .distantFuture)
        let bytes = try JSONSerializer(formatting: .compact).serialize(.array(dates.map { .date($0) }))
        #expect(String(decoding: bytes, as: UTF8.self) == "[" + texts.map { "\"\($0)\"" }.joined(separator: ",") + "]")
    }
}
