import Foundation
import StowageConfiguration
import StowageInMemory
import Testing

/// Every row of the value table in Guides/Configuration.md, both ways.
struct ValueMappingTests {
    /// Reads `stored`, kept in a real in-memory store, as `type` through the provider.
    private func read(_ stored: StoredValue, as type: ConfigType, key: String = "value") throws -> ConfigContent? {
        let store = InMemoryStore()
        try store.set(stored, forKey: key)
        return try StowageConfigProvider(store).value(forKey: AbsoluteConfigKey([key]), type: type).value?.content
    }

    /// The refusal for reading `stored` as `type`, which must name the key and the configuration type.
    private func refusal(_ stored: StoredValue, as type: ConfigType, key: String = "refused.key") throws -> StorageError {
        let error = try #require(throws: StorageError.self) { try read(stored, as: type, key: key) }
        #expect(error.key == key)
        #expect(error.message.contains("\"\(key)\""), "\(error.message)")
        #expect(error.message.contains("swift-configuration's \(type)"), "\(error.message)")
        return error
    }

    // MARK: Stowage to swift-configuration: exact rows

    @Test(arguments: ["", "plain", "héllo wörld", "👩🏽‍💻 e\u{301}", "line\nbreak \"quoted\" \u{0}"])
    func stringsReadAsTheSameUnicodeScalars(_ text: String) throws {
        let content = try read(.string(text), as: .string)
        guard case .string(let read)? = content else { Issue.record("read \(String(describing: content))"); return }
        #expect(Array(read.unicodeScalars) == Array(text.unicodeScalars))
    }

    @Test(arguments: [Int.min, -1, 0, 1, Int.max])
    func integersReadExactlyAsInt(_ value: Int) throws {
        #expect(try read(.signedInteger(Int64(value)), as: .int) == .int(value))
    }

    @Test func anIntegerBeyondIntIsRefusedAsOutOfRange() throws {
        let error = try refusal(.unsignedInteger(UInt64.max), as: .int)
        #expect(error.code == .valueOutOfRange)
    }

    @Test func doublesKeepEveryBitIncludingTheSignOfZero() throws {
        for value in [0.0, -0.0, 1.5, -1e308, Double.leastNonzeroMagnitude, .greatestFiniteMagnitude, .infinity, -.infinity] {
            guard case .double(let read)? = try read(.double(value), as: .double) else { Issue.record("\(value) did not read as a double"); continue }
            #expect(read.bitPattern == value.bitPattern, "\(value) read as \(read)")
        }
    }

    @Test func nanReadsAsNaN() throws {
        guard case .double(let read)? = try read(.double(.nan), as: .double) else { Issue.record("NaN did not read as a double"); return }
        #expect(read.isNaN)
    }

    @Test func integersReadAsDoublesOnlyWhenExact() throws {
        #expect(try read(.signedInteger(42), as: .double) == .double(42))
        #expect(try read(.signedInteger(1 << 53), as: .double) == .double(9_007_199_254_740_992))
        #expect(try read(.unsignedInteger(UInt64(1) << 63), as: .double) == .double(9_223_372_036_854_775_808))
        let error = try refusal(.signedInteger((1 << 53) + 1), as: .double)
        #expect(error.code == .valueOutOfRange)
        #expect(error.message.contains("2^53"))
        let inArray = try refusal(.array([.signedInteger(1), .signedInteger((1 << 53) + 1)]), as: .doubleArray)
        #expect(inArray.code == .valueOutOfRange)
    }

    @Test func wholeDoublesReadAsIntAndFractionsAreRefused() throws {
        #expect(try read(.double(3.0), as: .int) == .int(3))
        #expect(try read(.double(-0.0), as: .int) == .int(0))
        #expect(try refusal(.double(1.5), as: .int).code == .typeMismatch)
        #expect(try refusal(.double(.nan), as: .int).code == .typeMismatch)
        #expect(try refusal(.double(1e300), as: .int).code == .valueOutOfRange)
    }

    @Test func booleansReadAsBoolAndNumbersAreNotBooleans() throws {
        #expect(try read(.bool(true), as: .bool) == .bool(true))
        #expect(try read(.bool(false), as: .bool) == .bool(false))
        #expect(try refusal(.signedInteger(1), as: .bool).code == .typeMismatch)
        #expect(try refusal(.string("true"), as: .bool).code == .typeMismatch)
    }

    @Test func dataReadsAsBytesAndBase64TextToo() throws {
        #expect(try read(.data(Data()), as: .bytes) == .bytes([]))
        #expect(try read(.data(Data(0...255)), as: .bytes) == .bytes(Array(0...255)))
        // The JSON file store keeps data as Base64 text, which reads back as the bytes.
        #expect(try read(.string("AAH/"), as: .bytes) == .bytes([0, 1, 255]))
        #expect(try refusal(.string("not base64!"), as: .bytes).code == .invalidValue)
    }

    @Test func aDateReadsAsTheISO8601TextStowageKeepsInFiles() throws {
        let date = Date(timeIntervalSinceReferenceDate: 0.25)
        #expect(try read(.date(date), as: .string) == .string("2001-01-01T00:00:00.250Z"))
        #expect(try refusal(.date(date), as: .int).code == .typeMismatch)
    }

    @Test func aURLIsItsText() throws {
        let url = try #require(URL(string: "https://example.com/a%20b?q=1"))
        let store = InMemoryStore()
        try store.set(url, forKey: "endpoint")
        #expect(try StowageConfigProvider(store).value(forKey: ["endpoint"], type: .string).value?.content == .string("https://example.com/a%20b?q=1"))
    }

    @Test func arraysReadElementByElement() throws {
        #expect(try read(["a", "é", ""], as: .stringArray) == .stringArray(["a", "é", ""]))
        #expect(try read(.array([.signedInteger(Int64(Int.min)), .signedInteger(Int64(Int.max))]), as: .intArray) == .intArray([.min, .max]))
        #expect(try read(.array([.double(-0.0), .signedInteger(2)]), as: .doubleArray) == .doubleArray([-0.0, 2]))
        #expect(try read(.array([.bool(true), .bool(false)]), as: .boolArray) == .boolArray([true, false]))
        #expect(try read(.array([.data(Data()), .data(Data([7]))]), as: .byteChunkArray) == .byteChunkArray([[], [7]]))
    }

    @Test(arguments: [ConfigType.stringArray, .intArray, .doubleArray, .boolArray, .byteChunkArray])
    func anEmptyArrayReadsAsEveryArrayType(_ type: ConfigType) throws {
        let expected: ConfigContent =
            switch type {
            case .stringArray: .stringArray([])
            case .intArray: .intArray([])
            case .doubleArray: .doubleArray([])
            case .boolArray: .boolArray([])
            default: .byteChunkArray([])
            }
        #expect(try read(.array([]), as: type) == expected)
    }

    // MARK: Stowage to swift-configuration: refused rows

    @Test(arguments: [ConfigType.stringArray, .intArray, .doubleArray, .boolArray, .byteChunkArray])
    func nestedArraysAreRefused(_ type: ConfigType) throws {
        let error = try refusal(.array([.array([])]), as: type)
        #expect(error.code == .typeMismatch)
    }

    @Test(arguments: [ConfigType.string, .int, .double, .bool, .bytes, .stringArray, .intArray, .doubleArray, .boolArray, .byteChunkArray])
    func dictionariesAreRefusedAsEveryType(_ type: ConfigType) throws {
        let error = try refusal(["host": "db.internal", "port": 5432], as: type)
        #expect(error.code == .typeMismatch)
        #expect(error.message.contains("found a dictionary"), "\(error.message)")
        #expect(!error.message.contains("db.internal"), "a refusal quoted the value: \(error.message)")
    }

    @Test func aValueOfAnotherShapeIsRefusedNamingWhatWasExpected() throws {
        let error = try refusal(.string("hunter2"), as: .int)
        #expect(error.code == .typeMismatch)
        #expect(error.message.contains("expected Int, found a string"), "\(error.message)")
        #expect(!error.message.contains("hunter2"), "a refusal quoted the value: \(error.message)")
    }

    @Test func refusalsReadAsTheGuideQuotesThem() throws {
        let array = try refusal(["a.internal"], as: .int, key: "http.hosts")
        #expect(array.message == "Key \"http.hosts\": the value can not be read as swift-configuration's int (Int): expected Int, found an array.")
        let nested = try refusal(.array([.signedInteger(1), .array([])]), as: .intArray, key: "ports")
        #expect(nested.message.contains("at index 1: expected Int, found an array"), "\(nested.message)")
    }

    @Test(arguments: [ConfigType.string, .int, .bytes, .intArray])
    func anAbsentKeyIsNilForEveryType(_ type: ConfigType) throws {
        let provider = StowageConfigProvider(InMemoryStore())
        let result = try provider.value(forKey: ["missing"], type: type)
        #expect(result.value == nil)
        #expect(result.encodedKey == "missing")
    }

    // MARK: swift-configuration to Stowage

    @Test func everyConfigContentHasOneExactStoredValue() {
        #expect(StoredValue(configContent: ConfigContent.string("ü")) == .string("ü"))
        #expect(StoredValue(configContent: ConfigContent.int(.min)) == .signedInteger(Int64(Int.min)))
        #expect(StoredValue(configContent: ConfigContent.double(-0.0)) == .double(-0.0))
        #expect(StoredValue(configContent: ConfigContent.double(-0.0)) != .double(0.0))
        #expect(StoredValue(configContent: ConfigContent.double(.nan)) == .double(.nan))
        #expect(StoredValue(configContent: ConfigContent.bool(false)) == .bool(false))
        #expect(StoredValue(configContent: ConfigContent.bytes([])) == .data(Data()))
        #expect(StoredValue(configContent: ConfigContent.stringArray([])) == .array([]))
        #expect(StoredValue(configContent: ConfigContent.intArray([.max])) == .array([.signedInteger(Int64(Int.max))]))
        #expect(StoredValue(configContent: ConfigContent.doubleArray([.infinity])) == .array([.double(.infinity)]))
        #expect(StoredValue(configContent: ConfigContent.boolArray([true])) == .array([.bool(true)]))
        #expect(StoredValue(configContent: ConfigContent.byteChunkArray([[1], []])) == .array([.data(Data([1])), .data(Data())]))
    }

    @Test(arguments: [
        ConfigContent.string(""), .string("👩🏽‍💻"), .int(.min), .int(.max), .double(-0.0), .double(.infinity), .double(-.infinity),
        .bool(true), .bytes([]), .bytes([0, 255]), .stringArray([]), .stringArray(["a", ""]), .intArray([.min, 0, .max]),
        .doubleArray([0.1, -0.0]), .boolArray([false]), .byteChunkArray([]), .byteChunkArray([[], [1, 2]]),
    ])
    func contentRoundTripsThroughStowageAndBack(_ content: ConfigContent) throws {
        let type = configType(of: content)
        let back = try read(StoredValue(configContent: content), as: type)
        #expect(back.map { StoredValue(configContent: $0) } == StoredValue(configContent: content), "\(content) came back as \(String(describing: back))")
    }

    @Test func nanRoundTripsThroughStowageAndBack() throws {
        guard case .double(let back)? = try read(StoredValue(configContent: ConfigContent.double(.nan)), as: .double) else {
            Issue.record("NaN was lost"); return
        }
        #expect(back.isNaN)
    }

    private func configType(of content: ConfigContent) -> ConfigType {
        switch content {
        case .string: .string
        case .int: .int
        case .double: .double
        case .bool: .bool
        case .bytes: .bytes
        case .stringArray: .stringArray
        case .intArray: .intArray
        case .doubleArray: .doubleArray
        case .boolArray: .boolArray
        case .byteChunkArray: .byteChunkArray
        }
    }
}
