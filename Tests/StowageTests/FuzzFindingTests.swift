#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage
import Testing

/// What the `storable-decoding` fuzz target found in stored values and their
/// coding; the inputs are in `Fuzz/Regressions/storable-decoding`.
struct FuzzFindingTests {
    /// `==` compared dates with `Date`'s own `==`, so a date whose time is NaN
    /// was unequal to itself and could not be found in a set or a dictionary.
    @Test func aDateWhoseTimeIsNaNEqualsItselfAndHashesAlike() {
        let date = StoredValue.date(Date(timeIntervalSinceReferenceDate: .nan))
        let otherNaN = StoredValue.date(Date(timeIntervalSinceReferenceDate: -Double.nan))
        #expect(date == date)
        #expect(date == otherNaN)
        #expect(date.hashValue == otherNaN.hashValue)
        #expect(Set([date, otherNaN, date]).count == 1)
        #expect(date != .date(Date(timeIntervalSinceReferenceDate: 0)))
    }

    /// The canonical order asked `lexicographicallyPrecedes(_:by:)`, which calls
    /// its predicate both ways round, to compare nested arrays: comparing two
    /// values nested 30 levels deep took 2^30 calls, so storing such a set hung.
    @Test(.timeLimit(.minutes(1)))
    func setsOfDeeplyNestedValuesAreStoredWithoutDelay() throws {
        func nested(_ depth: Int, around leaf: StoredValue) -> StoredValue {
            (0..<depth).reduce(leaf) { value, _ in .array([value]) }
        }
        let set: Set<StoredValue> = [nested(200, around: 1), nested(200, around: 2), nested(199, around: ["k": 1])]
        guard case .array(let elements) = try set.storedValue() else {
            Issue.record("a set is stored as an array")
            return
        }
        // Arrays come before dictionaries, so the shallower value, which ends in one, goes last.
        #expect(elements == [nested(200, around: 1), nested(200, around: 2), nested(199, around: ["k": 1])])
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

    struct Tagged: Codable, Storable, Equatable {
        var tags: Set<String>
        var countsByID: [UUID: Int]
    }

    /// `Set` and a dictionary keyed by neither `String` nor `Int` encode their
    /// members in iteration order, which differs between equal values, so the
    /// stored form of one `Codable` value changed from one write to the next.
    @Test func setsAndPairedDictionariesInCodableValuesAreStoredInCanonicalOrder() throws {
        let names = (0..<64).map { "tag\($0)" }
        let ids = (10..<26).compactMap { UUID(uuidString: "00000000-0000-0000-0000-0000000000\($0)") }
        try #require(ids.count == 16)
        var grown = Set<String>(minimumCapacity: 1024)
        for name in names.reversed() { grown.insert(name) }
        let first = Tagged(tags: Set(names), countsByID: Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) }))
        var second = Tagged(tags: grown, countsByID: [:])
        for (index, id) in ids.enumerated().reversed() { second.countsByID[id] = index }
        #expect(first == second)

        let stored = try first.storedValue()
        #expect(try second.storedValue() == stored)
        guard case .dictionary(let members) = stored, case .array(let tags)? = members["tags"], case .array(let pairs)? = members["countsByID"]
        else {
            Issue.record("the value is stored as a dictionary of arrays")
            return
        }
        #expect(tags == names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { .string($0) })
        #expect(pairs.count == 32)
        #expect(pairs.first == .string(ids[0].uuidString))
        #expect(try Tagged(storedValue: stored) == first)
    }

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

    /// A whole double read as a 128-bit integer beyond 64 bits (2^64, say),
    /// which could then not be stored again: stored values keep 64 bits.
    @Test func wideIntegersReadDoublesWithinSixtyFourBitsOnly() throws {
        for beyond in [0x1p64, -0x1p64, 1e30] {
            let storable = #expect(throws: StorageError.self) { _ = try Int128(storedValue: .double(beyond)) }
            #expect(storable?.code == .valueOutOfRange)
            #expect(storable?.message.contains("64 bits") == true)
            #expect(throws: StorageError.self) { _ = try UInt128(storedValue: .double(beyond)) }
            let decoded = #expect(throws: StorageError.self) { _ = try StoredValueDecoder().decode([Int128].self, from: [.double(beyond)]) }
            #expect(decoded?.code == .valueOutOfRange)
        }
        #expect(try Int128(storedValue: .double(-0x1p63)) == Int128(Int64.min))
        #expect(try UInt128(storedValue: .double(0x1p63)) == UInt128(1) << 63)
        #expect(try StoredValueDecoder().decode([UInt128].self, from: [.double(0x1p63)]) == [UInt128(1) << 63])
        #expect(try Int8(storedValue: .double(-128)) == -128)
        #expect(throws: StorageError.self) { _ = try UInt8(storedValue: .double(-1)) }
    }
}
