#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage
import Testing

/// Dates as stored values and as text: their ISO 8601 form, its range, and
/// their order. Most of these were found by the `storable-decoding` and
/// `environment-values` fuzz targets (inputs under `Tools/Fuzz/Regressions`).
struct DateStorableTests {
    /// Date's text was formatted by a style that truncates to the millisecond,
    /// and the date read from "…00.004Z" lies just below 4 ms as a `Double`:
    /// it came out as "…00.003Z", losing a millisecond each time it was read and
    /// written back. One date in ten did.
    @Test func aDateReadFromItsTextGivesTheSameTextAgain() throws {
        for milliseconds in 0..<1000 {
            let date = Date(timeIntervalSinceReferenceDate: 730_000_000 + Double(milliseconds) / 1000)
            let text = date.iso8601String
            let reread = try Date(storedValue: .string(text))
            #expect(reread.iso8601String == text)
            #expect(abs(reread.timeIntervalSinceReferenceDate - date.timeIntervalSinceReferenceDate) < 0.0005)
        }
        #expect(Date(timeIntervalSinceReferenceDate: -0.0004).iso8601String == "2001-01-01T00:00:00.000Z")
        #expect(Date(timeIntervalSinceReferenceDate: -0.0006).iso8601String == "2000-12-31T23:59:59.999Z")
    }

    /// Before the year 0 the format style writes a signed year that no parser
    /// here reads, and it clamps NaN and infinite dates (NaN becomes the year -4712).
    @Test func onlyDatesInTheYearsZeroThroughNinetyNineThousandNineHundredNinetyNineHaveAnISO8601Form() throws {
        #expect(Date.distantPast.hasISO8601Form)
        #expect(Date.distantFuture.hasISO8601Form)
        #expect(try Date(storedValue: .string(Date.distantPast.iso8601String)) == .distantPast)
        #expect(Date(timeIntervalSinceReferenceDate: -63_145_699_200).hasISO8601Form)
        #expect(Date(timeIntervalSinceReferenceDate: 3_092_549_673_599.999).hasISO8601Form)
        #expect(!Date(timeIntervalSinceReferenceDate: -63_145_699_200.001).hasISO8601Form)
        #expect(!Date(timeIntervalSinceReferenceDate: 3_092_549_673_600).hasISO8601Form)
        #expect(!Date(timeIntervalSinceReferenceDate: .nan).hasISO8601Form)
        #expect(!Date(timeIntervalSinceReferenceDate: .infinity).hasISO8601Form)
        #expect(!Date(timeIntervalSince1970: -1e12).hasISO8601Form)
    }

    /// The format style's `parse` stops where a date ends and ignores the rest,
    /// and reads years of any length: "308021-01-01T00:00:00.000Z\",\"…" read
    /// as a date in the year 308021, whose text could never read back the same
    /// (found by the environment-values fuzz target, in `.ci/run`).
    @Test func onlyTheWholeTextOfADateWithAnISO8601FormReadsAsADate() throws {
        for text in [
            "308021-01-01T00:00:00.000Z", "308021-01-01T00:00:00.000Z\",\"x", "100000-01-01T00:00:00Z",
            "2024-01-01T00:00:00.000Zgarbage", "2024-01-01T00:00:00Z x", "2024-01-01T00:00:00+01:00 ",
        ] {
            #expect(Date(iso8601String: text) == nil, "\(text)")
            let error = #expect(throws: StorageError.self) { _ = try Date(storedValue: .string(text)) }
            #expect(error?.code == .invalidValue)
            #expect(throws: StorageError.self) { _ = try StoredValueDecoder().decode([Date].self, from: [.string(text)]) }
        }
        // The forms a file written by hand or by other tools holds still read, at both ends of the range.
        #expect(Date(iso8601String: "99999-12-31T23:59:59.999Z")?.hasISO8601Form == true)
        #expect(Date(iso8601String: "0000-01-01T00:00:00Z") == Date(timeIntervalSinceReferenceDate: -63_145_699_200))
        #expect(Date(iso8601String: "2023-11-15T00:13:20+02:00") == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(Date(iso8601String: "2023-11-14T22:13:20.5Z") == Date(timeIntervalSince1970: 1_700_000_000.5))
    }

    /// A date that text can not hold is refused when it is encoded as text,
    /// as the JSON serializer refuses it, instead of being written as text
    /// that reads back as another date.
    @Test func encodingADateWithoutAnISO8601FormThrows() throws {
        for date in [Date(timeIntervalSinceReferenceDate: 3_092_549_673_600), Date(timeIntervalSinceReferenceDate: .nan)] {
            let stored: StoredValue = ["when": [.date(date)]]
            let error = #expect(throws: EncodingError.self) { _ = try JSONEncoder().encode(stored) }
            guard case .invalidValue(_, let context)? = error else { continue }
            #expect(context.codingPath.map(\.stringValue) == ["when", "Index 0"])
            #expect(context.debugDescription.contains("99,999"))
            #expect(stored.holdsDateWithoutISO8601Form)
        }
        #expect(!StoredValue.dictionary(["when": [.date(.distantFuture)]]).holdsDateWithoutISO8601Form)
    }

    /// The order puts dates whose time is NaN last, so sorting a set of dates is deterministic.
    @Test func dateWithNaNTimesSortAfterEveryOtherDate() throws {
        let dates: Set<Date> = [Date(timeIntervalSinceReferenceDate: .nan), Date(timeIntervalSinceReferenceDate: 5), .distantPast]
        guard case .array(let elements) = try dates.storedValue() else {
            Issue.record("a set is stored as an array")
            return
        }
        #expect(elements.count == 3)
        #expect(elements.first == .date(.distantPast))
        #expect(elements.last == .date(Date(timeIntervalSinceReferenceDate: .nan)))
    }
}
