#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage
import Testing

struct StoredValueTests {
    @Test func integerCasesCompareAsNumbers() {
        #expect(StoredValue.signedInteger(5) == .unsignedInteger(5))
        #expect(StoredValue.signedInteger(-1) != .unsignedInteger(UInt64.max))
        #expect(StoredValue.signedInteger(5).hashValue == StoredValue.unsignedInteger(5).hashValue)
        #expect(Set<StoredValue>([.signedInteger(7), .unsignedInteger(7)]).count == 1)
    }

    @Test func integerPicksTheSignedCaseWheneverItFits() {
        #expect(StoredValue.integer(Int64.min) == .signedInteger(Int64.min))
        #expect(StoredValue.integer(UInt64(Int64.max)).map { if case .signedInteger = $0 { true } else { false } } == true)
        #expect(StoredValue.integer(UInt64.max).map { if case .unsignedInteger = $0 { true } else { false } } == true)
        #expect(StoredValue.integer(Int128.max) == nil)
    }

    @Test func differentCasesAreNeverEqual() {
        #expect(StoredValue.string("1") != .signedInteger(1))
        #expect(StoredValue.double(1) != .signedInteger(1))
        #expect(StoredValue.bool(true) != .signedInteger(1))
        #expect(StoredValue.null != .array([]))
    }

    @Test func nanEqualsItselfSoAnUnchangedValueIsNotAChange() {
        #expect(StoredValue.double(.nan) == .double(.nan))
    }

    @Test func aChangeOfSignOfZeroIsAChange() {
        #expect(StoredValue.double(0.0) != .double(-0.0))
        #expect(StoredValue.double(0.0).hashValue != StoredValue.double(-0.0).hashValue)
    }

    @Test func equalSetsHaveOneStoredForm() throws {
        // Built in different orders, so their iteration orders are likely to differ.
        let ascending = Set((0..<200).map { "element \($0)" })
        let descending = Set((0..<200).reversed().map { "element \($0)" })
        #expect(try ascending.storedValue() == descending.storedValue())
        let mixed: Set<StoredValue> = [1, "a", 2.5, true, nil, [1, 2], ["k": 1], .unsignedInteger(UInt64.max), -3]
        #expect(try mixed.storedValue() == Set(Array(mixed).reversed()).storedValue())
    }

    @Test func setsOrderIntegersAsNumbersWhicheverCaseHoldsThem() throws {
        // A store may hand back a small number as .unsignedInteger.
        let stored = try Set<StoredValue>([.unsignedInteger(3), .signedInteger(5), .signedInteger(-1)]).storedValue()
        #expect(stored == [-1, 3, 5])
    }

    @Test func literalsBuildNestedValues() {
        let value: StoredValue = ["name": "Ada", "launches": 3, "ratio": 0.5, "beta": true, "tags": ["a"], "none": nil]
        #expect(
            value
                == .dictionary([
                    "name": .string("Ada"), "launches": .signedInteger(3), "ratio": .double(0.5),
                    "beta": .bool(true), "tags": .array([.string("a")]), "none": .null,
                ]))
    }

    @Test func kindDescriptionNamesTheShapeNotTheValue() {
        #expect(StoredValue.string("hunter2").kindDescription == "a string")
        #expect(!StoredValue.string("hunter2").kindDescription.contains("hunter2"))
    }
}

extension StoredValueTests {
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
}
