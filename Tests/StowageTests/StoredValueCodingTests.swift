#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage
import Testing

struct StoredValueCodingTests {
    // MARK: - Fixtures

    enum Theme: String, Codable, Equatable {
        case light, dark
    }

    struct Address: Codable, Equatable {
        var street: String
        var city: String
        var postcode: String?
    }

    struct Profile: Codable, Equatable {
        var name: String
        var age: Int
        var score: Double
        var isAdmin: Bool
        var theme: Theme
        var nickname: String?
        var address: Address
        var previousAddresses: [Address]
        var tags: [String]
        var counters: [String: Int]
        var labelsByID: [Int: String]
        var matrix: [[Int]]
        var optionalNumbers: [Int?]
    }

    enum Shape: Codable, Equatable {
        case circle(radius: Double)
        case rectangle(width: Double, height: Double)
        case labelled(String, tag: Int?)
        case point
    }

    struct Empty: Codable, Equatable {}

    struct Person: Codable, Equatable {
        var name: String
        var address: Address
    }

    struct Credentials: Codable {
        var user: String
        var pin: Int
    }

    struct Stamped: Codable, Equatable {
        var created: Date
        var payload: Data
        var homepage: URL
        var id: UUID
        var history: [Date]
        var links: [String: URL]
        var backup: UUID?
    }

    struct Widths: Codable, Equatable {
        var int: Int?
        var int8: Int8?
        var int16: Int16?
        var int32: Int32?
        var int64: Int64?
        var int128: Int128?
        var uint: UInt?
        var uint8: UInt8?
        var uint16: UInt16?
        var uint32: UInt32?
        var uint64: UInt64?
        var uint128: UInt128?
    }

    struct CustomDecodingError: Error, Equatable {
        var detail: String
    }

    /// Refuses to decode unless the stored number is even.
    struct EvenNumber: Codable, Equatable {
        var value: Int

        init(value: Int) { self.value = value }

        init(from decoder: any Decoder) throws {
            let value = try decoder.singleValueContainer().decode(Int.self)
            guard value.isMultiple(of: 2) else { throw CustomDecodingError(detail: "odd") }
            self.value = value
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    struct Wallet: Codable, Equatable {
        var owner: String
        var balance: EvenNumber
    }

    /// Throws a `StorageError` of its own, which must reach the caller untouched.
    struct StrictlyPositive: Decodable {
        static let refusal = StorageError(code: .invalidValue, reason: "The number must be positive.")

        init(from decoder: any Decoder) throws {
            let value = try decoder.singleValueContainer().decode(Int.self)
            guard value > 0 else { throw Self.refusal }
        }
    }

    struct CustomEncodingError: Error {}

    struct Unencodable: Encodable {
        func encode(to encoder: any Encoder) throws { throw CustomEncodingError() }
    }

    class Vehicle: Codable {
        var wheels: Int

        init(wheels: Int) { self.wheels = wheels }
    }

    final class Car: Vehicle {
        var make: String

        init(make: String, wheels: Int) {
            self.make = make
            super.init(wheels: wheels)
        }

        private enum CodingKeys: String, CodingKey { case make }

        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            make = try container.decode(String.self, forKey: .make)
            try super.init(from: container.superDecoder())
        }

        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(make, forKey: .make)
            try super.encode(to: container.superEncoder())
        }
    }

    /// Writes through nested containers, and records the coding paths it sees.
    struct Layered: Codable, Equatable {
        var title: String
        var coordinates: [Double]
        var metadata: [String: String]

        private enum CodingKeys: String, CodingKey { case title, geometry }
        private enum GeometryKeys: String, CodingKey { case coordinates, metadata }

        init(title: String, coordinates: [Double], metadata: [String: String]) {
            self.title = title
            self.coordinates = coordinates
            self.metadata = metadata
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            title = try container.decode(String.self, forKey: .title)
            let geometry = try container.nestedContainer(keyedBy: GeometryKeys.self, forKey: .geometry)
            var coordinateList = try geometry.nestedUnkeyedContainer(forKey: .coordinates)
            var coordinates: [Double] = []
            while !coordinateList.isAtEnd {
                coordinates.append(try coordinateList.decode(Double.self))
            }
            self.coordinates = coordinates
            metadata = try geometry.decode([String: String].self, forKey: .metadata)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(title, forKey: .title)
            var geometry = container.nestedContainer(keyedBy: GeometryKeys.self, forKey: .geometry)
            var coordinateList = geometry.nestedUnkeyedContainer(forKey: .coordinates)
            for coordinate in coordinates {
                try coordinateList.encode(coordinate)
            }
            try geometry.encode(metadata, forKey: .metadata)
        }
    }

    /// Reports the coding path its `encode(to:)` and `init(from:)` are given.
    struct PathReporter: Codable {
        static func render(_ path: [any CodingKey]) -> String {
            path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: "/")
        }

        var seenPath: String

        init() { seenPath = "" }

        init(from decoder: any Decoder) throws {
            seenPath = Self.render(decoder.codingPath)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(Self.render(encoder.codingPath))
        }
    }

    struct PathHolder: Codable {
        var items: [PathReporter]
    }

    /// Asks for a keyed container after an unkeyed one, which the protocols do
    /// not let an encoder refuse on the spot.
    struct ContainerSwitcher: Encodable {
        private enum CodingKeys: String, CodingKey { case name }

        func encode(to encoder: any Encoder) throws {
            var list = encoder.unkeyedContainer()
            try list.encode(1)
            var keyed = encoder.container(keyedBy: CodingKeys.self)
            try keyed.encode("x", forKey: .name)
        }
    }

    /// Reads each element as an integer and falls back to a string.
    struct IntegerOrText: Decodable, Equatable {
        var values: [String]

        init(values: [String]) { self.values = values }

        init(from decoder: any Decoder) throws {
            var list = try decoder.unkeyedContainer()
            var values: [String] = []
            while !list.isAtEnd {
                if let number = try? list.decode(Int.self) {
                    values.append(String(number))
                } else {
                    values.append(try list.decode(String.self))
                }
            }
            self.values = values
        }
    }

    /// Distinguishes a missing or null field from a present one by hand.
    struct NilProbe: Decodable {
        var noteIsNil: Bool

        private enum CodingKeys: String, CodingKey { case note }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            noteIsNil = try container.decodeNil(forKey: .note)
        }
    }

    let encoder = StoredValueEncoder()
    let decoder = StoredValueDecoder()

    func roundTrip<Value: Codable & Equatable>(_ value: Value) throws -> Value {
        try decoder.decode(Value.self, from: encoder.encode(value))
    }

    static let sampleProfile = Profile(
        name: "Ada",
        age: 36,
        score: 99.5,
        isAdmin: true,
        theme: .dark,
        nickname: nil,
        address: Address(street: "1 Analytical Way", city: "London", postcode: "N1"),
        previousAddresses: [
            Address(street: "2 Engine Row", city: "Marylebone", postcode: nil),
            Address(street: "3 Loom Lane", city: "Ockham", postcode: "KT"),
        ],
        tags: ["math", "poetry"],
        counters: ["launches": 3, "crashes": 0],
        labelsByID: [1: "one", 20: "twenty"],
        matrix: [[1, 2], [], [3]],
        optionalNumbers: [1, nil, 3]
    )

    // MARK: - Round trips and shapes

    @Test func nestedStructsEnumsOptionalsArraysAndDictionariesRoundTrip() throws {
        #expect(try roundTrip(Self.sampleProfile) == Self.sampleProfile)
    }

    @Test func keyedValuesBecomeDictionariesAndNilOptionalsAreLeftOut() throws {
        let stored = try encoder.encode(Address(street: "1 Main St", city: "Springfield", postcode: nil))
        #expect(stored == ["street": "1 Main St", "city": "Springfield"])
    }

    @Test func sequencesBecomeArraysAndNilElementsBecomeNull() throws {
        #expect(try encoder.encode([1, 2, 3]) == [1, 2, 3])
        #expect(try encoder.encode([1, nil, 3] as [Int?]) == [1, nil, 3])
        #expect(try encoder.encode([[true], [false, true]]) == [[true], [false, true]])
    }

    @Test func dictionariesWithIntegerKeysUseTheirDecimalStrings() throws {
        let labels: [Int: String] = [1: "one", -7: "minus seven"]
        let stored = try encoder.encode(labels)
        #expect(stored == ["1": "one", "-7": "minus seven"])
        #expect(try decoder.decode([Int: String].self, from: stored) == labels)
    }

    @Test func topLevelNilBecomesNullAndNullDecodesAsNil() throws {
        #expect(try encoder.encode(Int?.none) == .null)
        #expect(try decoder.decode(Int?.self, from: .null) == nil)
        #expect(try decoder.decode(Int?.self, from: 4) == 4)
    }

    @Test func emptyStructEncodesAsEmptyDictionary() throws {
        #expect(try encoder.encode(Empty()) == .dictionary([:]))
        #expect(try decoder.decode(Empty.self, from: .dictionary([:])) == Empty())
    }

    @Test(arguments: [(Theme.light, "light"), (Theme.dark, "dark")])
    func rawValueEnumEncodesAsItsSingleValue(theme: Theme, rawValue: String) throws {
        #expect(try encoder.encode(theme) == .string(rawValue))
        #expect(try decoder.decode(Theme.self, from: .string(rawValue)) == theme)
    }

    @Test(arguments: [
        Shape.circle(radius: 2.5),
        Shape.rectangle(width: 3, height: 4),
        Shape.labelled("origin", tag: nil),
        Shape.labelled("north", tag: 7),
        Shape.point,
    ])
    func enumWithAssociatedValuesRoundTrips(shape: Shape) throws {
        #expect(try roundTrip(shape) == shape)
    }

    @Test func enumWithAssociatedValuesUsesItsCaseNameAsKey() throws {
        #expect(try encoder.encode(Shape.circle(radius: 2.5)) == ["circle": ["radius": 2.5]])
        #expect(try encoder.encode(Shape.point) == ["point": .dictionary([:])])
    }

    @Test func nestedContainersRoundTrip() throws {
        let value = Layered(title: "Route", coordinates: [1.5, -2, 3], metadata: ["by": "Ada"])
        let stored = try encoder.encode(value)
        #expect(stored == ["title": "Route", "geometry": ["coordinates": [1.5, -2.0, 3.0], "metadata": ["by": "Ada"]]])
        #expect(try decoder.decode(Layered.self, from: stored) == value)
    }

    @Test func superEncoderAndSuperDecoderKeepTheSuperclassUnderSuper() throws {
        let stored = try encoder.encode(Car(make: "Tin Lizzie", wheels: 4))
        #expect(stored == ["make": "Tin Lizzie", "super": ["wheels": 4]])
        let car = try decoder.decode(Car.self, from: stored)
        #expect(car.make == "Tin Lizzie")
        #expect(car.wheels == 4)
    }

    @Test func nestedValuesSeeTheirCodingPath() throws {
        let stored = try encoder.encode(PathHolder(items: [PathReporter(), PathReporter()]))
        #expect(stored == ["items": ["items/[0]", "items/[1]"]])
        let decoded = try decoder.decode(PathHolder.self, from: ["items": [1, 2]])
        #expect(decoded.items.map(\.seenPath) == ["items/[0]", "items/[1]"])
    }

    @Test func failedElementDecodeCanBeRetriedAsAnotherType() throws {
        let decoded = try decoder.decode(IntegerOrText.self, from: [1, "two", 3])
        #expect(decoded == IntegerOrText(values: ["1", "two", "3"]))
    }

    // MARK: - Integers

    @Test func extremeSignedIntegersStayExact() throws {
        let minimum = try encoder.encode(Int64.min)
        let maximum = try encoder.encode(Int64.max)
        guard case .signedInteger(Int64.min) = minimum, case .signedInteger(Int64.max) = maximum else {
            Issue.record("Expected signed integers, got \(minimum) and \(maximum)")
            return
        }
        #expect(try decoder.decode(Int64.self, from: minimum) == Int64.min)
        #expect(try decoder.decode(Int64.self, from: maximum) == Int64.max)
    }

    @Test func unsignedIntegersAboveInt64MaxUseTheUnsignedCase() throws {
        let maximum = try encoder.encode(UInt64.max)
        guard case .unsignedInteger(UInt64.max) = maximum else {
            Issue.record("Expected an unsigned integer, got \(maximum)")
            return
        }
        #expect(try decoder.decode(UInt64.self, from: maximum) == UInt64.max)
        #expect(try roundTrip(Widths(uint64: UInt64.max)) == Widths(uint64: UInt64.max))
    }

    @Test(arguments: [UInt64(0), 1, UInt64(Int64.max)])
    func unsignedIntegersThatFitInt64UseTheSignedCase(value: UInt64) throws {
        let stored = try encoder.encode(value)
        guard case .signedInteger(let signed) = stored else {
            Issue.record("Expected a signed integer, got \(stored)")
            return
        }
        #expect(UInt64(signed) == value)
    }

    @Test func everyIntegerWidthRoundTripsItsExtremes() throws {
        let minimums = Widths(
            int: .min, int8: .min, int16: .min, int32: .min, int64: .min, int128: Int128(Int64.min),
            uint: .min, uint8: .min, uint16: .min, uint32: .min, uint64: .min, uint128: .min
        )
        let maximums = Widths(
            int: .max, int8: .max, int16: .max, int32: .max, int64: .max, int128: Int128(Int64.max),
            uint: .max, uint8: .max, uint16: .max, uint32: .max, uint64: .max, uint128: UInt128(UInt64.max)
        )
        #expect(try roundTrip(minimums) == minimums)
        #expect(try roundTrip(maximums) == maximums)
    }

    enum IntegerWidth: String, CaseIterable, Sendable {
        case int, int8, int16, int32, int64, int128, uint, uint8, uint16, uint32, uint64, uint128

        /// Stored values just outside the width's range.
        var outOfRangeValues: [StoredValue] {
            switch self {
            case .int, .int64: [.unsignedInteger(UInt64(Int64.max) + 1), .double(1e19), .double(-1e19)]
            case .int8: [128, -129, .double(200)]
            case .int16: [32768, -32769]
            case .int32: [2_147_483_648, -2_147_483_649]
            case .int128: [.double(1e39), .double(-1e39)]
            case .uint, .uint64: [-1, .double(-1), .double(2e19)]
            case .uint8: [256, -1]
            case .uint16: [65536, -1]
            case .uint32: [4_294_967_296, -1]
            case .uint128: [-1, .double(1e39)]
            }
        }

        /// Decodes `value` as this width at the top level, as an array element
        /// and as a struct field, which take different paths through the decoder.
        func decodeEveryWay(_ value: StoredValue) -> [(place: String, error: StorageError?)] {
            let decoder = StoredValueDecoder()
            func attempt(_ place: String, _ body: () throws -> Void) -> (place: String, error: StorageError?) {
                do {
                    try body()
                    return (place, nil)
                } catch {
                    return (place, error as? StorageError)
                }
            }
            func all<Integer: Decodable>(_ type: Integer.Type) -> [(place: String, error: StorageError?)] {
                [
                    attempt("top level") { _ = try decoder.decode(type, from: value) },
                    attempt("element") { _ = try decoder.decode([Integer].self, from: [value]) },
                    attempt("field") { _ = try decoder.decode(Widths.self, from: .dictionary([rawValue: value])) },
                ]
            }
            return switch self {
            case .int: all(Int.self)
            case .int8: all(Int8.self)
            case .int16: all(Int16.self)
            case .int32: all(Int32.self)
            case .int64: all(Int64.self)
            case .int128: all(Int128.self)
            case .uint: all(UInt.self)
            case .uint8: all(UInt8.self)
            case .uint16: all(UInt16.self)
            case .uint32: all(UInt32.self)
            case .uint64: all(UInt64.self)
            case .uint128: all(UInt128.self)
            }
        }
    }

    @Test(arguments: IntegerWidth.allCases)
    func outOfRangeIntegerIsValueOutOfRange(width: IntegerWidth) throws {
        for value in width.outOfRangeValues {
            for attempt in width.decodeEveryWay(value) {
                let error = try #require(attempt.error, "\(width) \(attempt.place) accepted \(value)")
                #expect(error.code == .valueOutOfRange, "\(width) \(attempt.place) from \(value)")
                #expect(error.reason.contains("outside the range"))
            }
        }
    }

    @Test func outOfRangeRequiredFieldNamesItsPath() throws {
        struct Narrow: Decodable {
            var small: Int8
            var ratio: Float
        }
        let integerError = try #require(throws: StorageError.self) {
            try decoder.decode(Narrow.self, from: ["small": 300, "ratio": 1])
        }
        #expect(integerError.code == .valueOutOfRange)
        #expect(integerError.reason == "At \"small\": found an integer outside the range of Int8.")
        let floatError = try #require(throws: StorageError.self) {
            try decoder.decode(Narrow.self, from: ["small": 3, "ratio": .double(-1e40)])
        }
        #expect(floatError.code == .valueOutOfRange)
        #expect(floatError.reason == "At \"ratio\": found a floating-point number outside the range of Float.")
    }

    @Test(arguments: [0.0, -0.0, 42.0, -42.0, 9_007_199_254_740_992.0])
    func integralDoubleDecodesAsInteger(value: Double) throws {
        #expect(try decoder.decode(Int.self, from: .double(value)) == Int(value))
        #expect(try decoder.decode(Int64.self, from: .double(value)) == Int64(value))
        #expect(try decoder.decode([Int64].self, from: [.double(value)]) == [Int64(value)])
        #expect(try decoder.decode(Widths.self, from: ["int64": .double(value)]).int64 == Int64(value))
    }

    @Test func integralDoubleDecodesForEveryWidth() throws {
        let stored: StoredValue = [
            "int": 7.0, "int8": 7.0, "int16": 7.0, "int32": 7.0, "int64": 7.0, "int128": 7.0,
            "uint": 7.0, "uint8": 7.0, "uint16": 7.0, "uint32": 7.0, "uint64": 7.0, "uint128": 7.0,
        ]
        let expected = Widths(
            int: 7, int8: 7, int16: 7, int32: 7, int64: 7, int128: 7,
            uint: 7, uint8: 7, uint16: 7, uint32: 7, uint64: 7, uint128: 7
        )
        #expect(try decoder.decode(Widths.self, from: stored) == expected)
    }

    @Test(arguments: [1.5, -0.25, Double.nan, Double.infinity])
    func nonIntegralDoubleIsRejectedForIntegers(value: Double) throws {
        let error = try #require(throws: StorageError.self) {
            try decoder.decode(Int.self, from: .double(value))
        }
        #expect(error.code == .typeMismatch)
        #expect(error.reason.contains("expected an integer"))
    }

    @Test func wideIntegersThatFit64BitsRoundTrip() throws {
        #expect(try encoder.encode(Int128(-5)) == -5)
        let large = try encoder.encode(UInt128(UInt64.max))
        guard case .unsignedInteger(UInt64.max) = large else {
            Issue.record("Expected an unsigned integer, got \(large)")
            return
        }
        #expect(try decoder.decode(UInt128.self, from: large) == UInt128(UInt64.max))
        #expect(try decoder.decode(Int128.self, from: .signedInteger(.min)) == Int128(Int64.min))
    }

    @Test(arguments: [Int128(UInt64.max) + 1, Int128(Int64.min) - 1, Int128.max])
    func wideIntegerBeyond64BitsFailsToEncode(value: Int128) throws {
        let error = try #require(throws: StorageError.self) { try encoder.encode(value) }
        #expect(error.code == .encodingFailed)
        let fieldError = try #require(throws: StorageError.self) { try encoder.encode(Widths(int128: value)) }
        #expect(fieldError.code == .encodingFailed)
        #expect(fieldError.reason.contains("\"int128\""))
    }

    // MARK: - Floating point

    @Test func floatingPointDecodesFromDoublesAndIntegers() throws {
        #expect(try decoder.decode(Double.self, from: 2.5) == 2.5)
        #expect(try decoder.decode(Double.self, from: 3) == 3)
        #expect(try decoder.decode(Double.self, from: .unsignedInteger(UInt64.max)) == Double(UInt64.max))
        #expect(try decoder.decode(Float.self, from: 0.1) == Float(0.1))
        #expect(try decoder.decode(Float.self, from: -4) == -4)
        #expect(try decoder.decode(Float.self, from: .double(.infinity)) == .infinity)
        #expect(try roundTrip(Float(0.1)) == Float(0.1))
    }

    @Test func finiteDoubleBeyondFloatIsValueOutOfRange() throws {
        let error = try #require(throws: StorageError.self) {
            try decoder.decode(Float.self, from: .double(1e300))
        }
        #expect(error.code == .valueOutOfRange)
    }

    // MARK: - Foundation leaf types

    static let sampleDate = Date(timeIntervalSince1970: 1_700_000_000.5)
    static let sampleUUID = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))

    @Test func foundationTypesKeepTheirNaturalForm() throws {
        let url = try #require(URL(string: "https://example.com/a?b=c"))
        #expect(try encoder.encode(Self.sampleDate) == .date(Self.sampleDate))
        #expect(try encoder.encode(Data([1, 2, 3])) == .data(Data([1, 2, 3])))
        #expect(try encoder.encode(url) == "https://example.com/a?b=c")
        #expect(try encoder.encode(Self.sampleUUID) == .string(Self.sampleUUID.uuidString))
    }

    @Test func foundationTypesKeepTheirNaturalFormInsideContainers() throws {
        let homepage = try #require(URL(string: "https://example.com"))
        let value = Stamped(
            created: Self.sampleDate,
            payload: Data("hi".utf8),
            homepage: homepage,
            id: Self.sampleUUID,
            history: [Self.sampleDate],
            links: ["home": homepage],
            backup: Self.sampleUUID
        )
        let stored = try encoder.encode(value)
        #expect(
            stored == [
                "created": .date(Self.sampleDate),
                "payload": .data(Data("hi".utf8)),
                "homepage": "https://example.com",
                "id": .string(Self.sampleUUID.uuidString),
                "history": [.date(Self.sampleDate)],
                "links": ["home": "https://example.com"],
                "backup": .string(Self.sampleUUID.uuidString),
            ])
        #expect(try decoder.decode(Stamped.self, from: stored) == value)
    }

    @Test(arguments: [
        ("2023-11-14T22:13:20Z", 1_700_000_000.0),
        ("2023-11-14T22:13:20.5Z", 1_700_000_000.5),
        ("2023-11-14T22:13:20.250Z", 1_700_000_000.25),
        ("2023-11-15T00:13:20+02:00", 1_700_000_000.0),
    ])
    func dateDecodesFromISO8601String(text: String, secondsSince1970: Double) throws {
        let date = try decoder.decode(Date.self, from: .string(text))
        #expect(abs(date.timeIntervalSince1970 - secondsSince1970) < 0.001)
        let history = try decoder.decode([Date].self, from: [.string(text)])
        #expect(history == [date])
    }

    @Test func dataDecodesFromBase64String() throws {
        #expect(try decoder.decode(Data.self, from: "aGk=") == Data("hi".utf8))
        #expect(try decoder.decode([String: Data].self, from: ["key": "AQID"]) == ["key": Data([1, 2, 3])])
    }

    @Test func urlAndUUIDDecodeFromStrings() throws {
        #expect(try decoder.decode(URL.self, from: "https://example.com/x") == URL(string: "https://example.com/x"))
        #expect(try decoder.decode(UUID.self, from: .string(Self.sampleUUID.uuidString)) == Self.sampleUUID)
    }

    @Test(arguments: [
        ("created", "yesterday at noon", "a string that is not an ISO 8601 date"),
        ("payload", "not*base64!", "a string that is not valid base64"),
        ("id", "not-a-uuid", "a string that is not a valid UUID"),
        ("homepage", "", "a string that is not a valid URL"),
    ])
    func unreadableStringIsInvalidValueWithoutQuotingIt(field: String, text: String, problem: String) throws {
        var stored: [String: StoredValue] = [
            "created": .date(Self.sampleDate),
            "payload": .data(Data()),
            "homepage": "https://example.com",
            "id": .string(Self.sampleUUID.uuidString),
            "history": [],
            "links": [:],
        ]
        stored[field] = .string(text)
        let error = try #require(throws: StorageError.self) {
            try decoder.decode(Stamped.self, from: .dictionary(stored))
        }
        #expect(error.code == .invalidValue)
        #expect(error.reason.contains("\"\(field)\""))
        #expect(error.reason.contains(problem))
        if !text.isEmpty {
            #expect(!error.description.contains(text))
        }
    }

    @Test func dateFromWrongKindIsTypeMismatch() throws {
        let error = try #require(throws: StorageError.self) { try decoder.decode(Date.self, from: true) }
        #expect(error.code == .typeMismatch)
        #expect(error.reason == "At the top level: expected a date, found a boolean.")
    }

    // MARK: - Errors

    @Test func missingKeyNamesTheCodingPath() throws {
        let stored: StoredValue = ["name": "Ada", "address": ["street": "1 Main St"]]
        let error = try #require(throws: StorageError.self) { try decoder.decode(Person.self, from: stored) }
        #expect(error.code == .typeMismatch)
        #expect(error.reason == "At \"address.city\": expected a string, but the key is missing.")
    }

    @Test func typeMismatchNamesTheCodingPathAndTheKinds() throws {
        let stored: StoredValue = ["name": "Ada", "address": ["street": "1 Main St", "city": 5]]
        let error = try #require(throws: StorageError.self) { try decoder.decode(Person.self, from: stored) }
        #expect(error.code == .typeMismatch)
        #expect(error.reason == "At \"address.city\": expected a string, found an integer.")
    }

    @Test func typeMismatchInsideAnArrayNamesTheIndex() throws {
        let stored: StoredValue = ["previous": [["street": "a", "city": "b"], ["street": "c", "city": false]]]
        struct History: Decodable { var previous: [Address] }
        let error = try #require(throws: StorageError.self) { try decoder.decode(History.self, from: stored) }
        #expect(error.reason == "At \"previous[1].city\": expected a string, found a boolean.")
    }

    @Test(arguments: ["hunter2", "correct horse battery staple"])
    func typeMismatchNeverQuotesTheStoredValue(secret: String) throws {
        let stored: StoredValue = ["user": "ada", "pin": .string(secret)]
        let error = try #require(throws: StorageError.self) { try decoder.decode(Credentials.self, from: stored) }
        #expect(error.code == .typeMismatch)
        #expect(error.reason.contains("\"pin\""))
        #expect(!error.reason.contains(secret))
        #expect(!error.message.contains(secret))
        #expect(!error.description.contains(secret))
    }

    @Test func wrongContainerKindIsTypeMismatch() throws {
        let error = try #require(throws: StorageError.self) { try decoder.decode(Address.self, from: [1, 2]) }
        #expect(error.code == .typeMismatch)
        #expect(error.reason == "At the top level: expected a dictionary, found an array.")
        let listError = try #require(throws: StorageError.self) { try decoder.decode([Int].self, from: ["a": 1]) }
        #expect(listError.reason == "At the top level: expected an array, found a dictionary.")
    }

    @Test func readingPastTheEndOfAnArrayIsTypeMismatch() throws {
        struct Pair: Decodable {
            var first: Int
            var second: Int

            init(from decoder: any Decoder) throws {
                var list = try decoder.unkeyedContainer()
                first = try list.decode(Int.self)
                second = try list.decode(Int.self)
            }
        }
        let error = try #require(throws: StorageError.self) { try decoder.decode(Pair.self, from: [1]) }
        #expect(error.code == .typeMismatch)
        #expect(error.reason == "At \"[1]\": expected an integer, but the array has no more elements.")
    }

    @Test(arguments: [
        ("missing", StoredValue.dictionary([:])),
        ("null", StoredValue.dictionary(["note": .null])),
    ])
    func missingKeyAndNullBothDecodeAsNil(situation: String, stored: StoredValue) throws {
        #expect(try decoder.decode(NilProbe.self, from: stored).noteIsNil, "\(situation)")
        struct Note: Decodable { var note: String? }
        #expect(try decoder.decode(Note.self, from: stored).note == nil, "\(situation)")
        #expect(try decoder.decode(NilProbe.self, from: ["note": "x"]).noteIsNil == false)
    }

    @Test func customErrorFromInitFromIsWrappedWithItsUnderlyingError() throws {
        let stored: StoredValue = ["owner": "Ada", "balance": 3]
        let error = try #require(throws: StorageError.self) { try decoder.decode(Wallet.self, from: stored) }
        #expect(error.code == .invalidValue)
        #expect(error.reason.contains("\"balance\""))
        #expect(error.underlyingError as? CustomDecodingError == CustomDecodingError(detail: "odd"))
        #expect(try decoder.decode(Wallet.self, from: ["owner": "Ada", "balance": 4]).balance == EvenNumber(value: 4))
    }

    @Test func storageErrorFromInitFromPropagatesUnchanged() throws {
        let error = try #require(throws: StorageError.self) {
            try decoder.decode([StrictlyPositive].self, from: [1, -1])
        }
        #expect(error.code == StrictlyPositive.refusal.code)
        #expect(error.reason == StrictlyPositive.refusal.reason)
        #expect(error.underlyingError == nil)
    }

    @Test func customErrorFromEncodeToIsWrappedWithItsUnderlyingError() throws {
        let error = try #require(throws: StorageError.self) { try encoder.encode(["broken": Unencodable()]) }
        #expect(error.code == .encodingFailed)
        #expect(error.reason.contains("\"broken\""))
        #expect(error.underlyingError is CustomEncodingError)
    }

    @Test func askingForTwoKindsOfContainerFailsInsteadOfTrapping() throws {
        let error = try #require(throws: StorageError.self) { try encoder.encode(ContainerSwitcher()) }
        #expect(error.code == .encodingFailed)
    }
}
