import Stowage
import Testing
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct StorableTests {
    @Test func integersRoundTripAtTheirLimits() throws {
        try expectRoundTrip(Int64.min)
        try expectRoundTrip(Int64.max)
        try expectRoundTrip(UInt64.max)
        try expectRoundTrip(Int8.min)
        try expectRoundTrip(UInt8.max)
        try expectRoundTrip(Int.min)
        try expectRoundTrip(UInt.max)
        try expectRoundTrip(Int128(Int64.min))
        try expectRoundTrip(UInt128(UInt64.max))
        #expect(try UInt64.max.storedValue() == .unsignedInteger(UInt64.max))
    }

    /// Each width rejects the first value past each of its ends.
    @Test(arguments: [
        (Int8.self as any Storable.Type, StoredValue.signedInteger(128)),
        (Int8.self, .signedInteger(-129)),
        (Int16.self, .signedInteger(Int64(Int16.max) + 1)),
        (Int32.self, .signedInteger(Int64(Int32.min) - 1)),
        (Int64.self, .unsignedInteger(UInt64(Int64.max) + 1)),
        (Int.self, .unsignedInteger(UInt64.max)),
        (UInt8.self, .signedInteger(256)),
        (UInt8.self, .signedInteger(-1)),
        (UInt16.self, .signedInteger(65_536)),
        (UInt32.self, .signedInteger(Int64(UInt32.max) + 1)),
        (UInt64.self, .signedInteger(-1)),
        (UInt.self, .signedInteger(-1)),
    ])
    func integersOutOfRangeAreErrorsNotTrapsOrWraps(type: any Storable.Type, stored: StoredValue) {
        let error = #expect(throws: StorageError.self) { _ = try type.init(storedValue: stored) }
        #expect(error?.code == .valueOutOfRange)
        #expect(error?.message.contains("\(type)") == true)
    }

    @Test func wideIntegersBeyondSixtyFourBitsFailToEncode() {
        let error = #expect(throws: StorageError.self) { _ = try Int128.max.storedValue() }
        #expect(error?.code == .encodingFailed)
    }

    @Test func integersAcceptWholeDoublesOnly() throws {
        #expect(try Int(storedValue: .double(42)) == 42)
        let error = #expect(throws: StorageError.self) { _ = try Int(storedValue: .double(1.5)) }
        #expect(error?.code == .typeMismatch)
        #expect(throws: StorageError.self) { _ = try Int(storedValue: .double(.infinity)) }
        #expect(throws: StorageError.self) { _ = try Int64(storedValue: .double(1e30)) }
    }

    @Test func floatingPointValuesRoundTrip() throws {
        try expectRoundTrip(Double.pi)
        try expectRoundTrip(-0.0 as Double)
        try expectRoundTrip(Double.leastNonzeroMagnitude)
        try expectRoundTrip(Double.greatestFiniteMagnitude)
        try expectRoundTrip(Float(1.25))
        #expect(try Double(storedValue: .signedInteger(3)) == 3)
        #expect(try Double(storedValue: .double(.infinity)) == .infinity)
    }

    @Test func aDoubleBeyondFloatRangeIsAnError() {
        let error = #expect(throws: StorageError.self) { _ = try Float(storedValue: .double(1e300)) }
        #expect(error?.code == .valueOutOfRange)
    }

    @Test func aFloatReadFromTextNamesFloatNotDouble() {
        let error = #expect(throws: StorageError.self) { _ = try Float(storedValue: .string("1.5")) }
        #expect(error?.message == "expected Float, found a string.")
    }

    @Test func wrongShapesAreTypeMismatchesNamingBothSides() {
        let error = #expect(throws: StorageError.self) { _ = try Bool(storedValue: .string("yes")) }
        #expect(error?.code == .typeMismatch)
        #expect(error?.message == "expected Bool, found a string.")
        #expect(throws: StorageError.self) { _ = try String(storedValue: .signedInteger(1)) }
    }

    @Test func foundationTypesRoundTripAndReadFromText() throws {
        try expectRoundTrip(Data([0, 1, 2, 255]))
        try expectRoundTrip(Date(timeIntervalSince1970: 1_700_000_000.5))
        try expectRoundTrip(try #require(URL(string: "https://example.com/a?b=c#d")))
        try expectRoundTrip(UUID())
        #expect(try Data(storedValue: .string("AAEC/w==")) == Data([0, 1, 2, 255]))
        #expect(try Date(storedValue: .string("2024-02-29T12:00:00Z")) == Date(timeIntervalSince1970: 1_709_208_000))
        #expect(try Date(storedValue: .string("2024-02-29T12:00:00.250Z")) == Date(timeIntervalSince1970: 1_709_208_000.25))
    }

    @Test func invalidTextForFoundationTypesIsAnInvalidValue() {
        for (type, text) in [(Data.self as any Storable.Type, "%%%"), (Date.self, "yesterday"), (UUID.self, "not-a-uuid"), (URL.self, "")] {
            let error = #expect(throws: StorageError.self) { _ = try type.init(storedValue: .string(text)) }
            #expect(error?.code == .invalidValue, "\(type)")
        }
    }

    @Test func optionalsKeepNilAsNull() throws {
        #expect(try Int?(storedValue: .null) == nil)
        #expect(try Int?(storedValue: .signedInteger(1)) == 1)
        #expect(try Int?.none.storedValue() == .null)
        #expect(try [Int?](storedValue: [1, nil]) == [1, nil])
    }

    @Test func collectionsRoundTripAndNameTheFailingElement() throws {
        try expectRoundTrip([1, 2, 3])
        try expectRoundTrip(Set(["a", "b"]))
        try expectRoundTrip(["a": [1], "b": []])
        try expectRoundTrip([["nested": [Theme.dark]]])
        let error = #expect(throws: StorageError.self) { _ = try [Int](storedValue: [1, "two"]) }
        #expect(error?.message.contains("at index 1") == true)
    }

    @Test func rawRepresentableTypesUseTheirRawValueEvenWhenCodable() throws {
        #expect(try Theme.dark.storedValue() == .string("dark"))
        #expect(try Theme(storedValue: .string("light")) == .light)
        let error = #expect(throws: StorageError.self) { _ = try Theme(storedValue: .string("sepia")) }
        #expect(error?.code == .invalidValue)
    }

    @Test func codableTypesAreKeptAsNestedValues() throws {
        let profile = Profile(name: "Ada", age: 36, address: Address(city: "London", postcode: "NW1"), tags: ["math"])
        let stored = try profile.storedValue()
        guard case .dictionary(let fields) = stored else {
            Issue.record("expected a dictionary, got \(stored)")
            return
        }
        #expect(fields["name"] == .string("Ada"))
        #expect(fields["address"] == ["city": "London", "postcode": "NW1"])
        #expect(try Profile(storedValue: stored) == profile)
    }

    private func expectRoundTrip<Value: Storable & Equatable>(_ value: Value, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let decoded = try Value(storedValue: value.storedValue())
        #expect(decoded == value, sourceLocation: sourceLocation)
    }
}

extension StorableTests {
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
