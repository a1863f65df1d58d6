import Foundation
import StowageUserDefaults
import Testing

/// What reaches `UserDefaults`: values it keeps exactly as themselves, for
/// other code reading the same defaults, and the rest in Stowage's exact form,
/// never through a call that traps or loses precision.
struct UserDefaultsExactFormTests {
    let suites = TemporarySuites()

    /// Each was measured on Linux to trap or change in `UserDefaults` when written as itself.
    @Test func valuesUserDefaultsWouldChangeOrRefuseComeBackExactly() throws {
        defer { suites.removeAll() }
        let store = try suites.makeStore()
        let fractionalDate = Date(timeIntervalSince1970: 1.123456789)
        try store.set([1, nil] as [Int?], forKey: "arrayWithNil")
        try store.set(-0.0, forKey: "negativeZero")
        try store.set(Double.nan, forKey: "nan")
        try store.set(-Double.infinity, forKey: "minusInfinity")
        try store.set(fractionalDate, forKey: "date")
        try store.set("a\u{0}b\r\n\u{B}", forKey: "controlCharacters")
        try store.set(["line\rbreak": 1], forKey: "dictionaryWithAnUnsafeKey")
        try store.set(Data([0x00] + Array("stowage".utf8) + [0x01, 0x6E]), forKey: "dataThatLooksEncoded")

        let reopened = try UserDefaultsStore(suiteName: try #require(store.suiteName))
        for reader in [store, reopened] {
            #expect(try reader.value(forKey: "arrayWithNil", as: [Int?].self) == [1, nil])
            let zero = try #require(try reader.value(forKey: "negativeZero", as: Double.self))
            #expect(zero == 0 && zero.sign == .minus)
            #expect(try reader.value(forKey: "nan", as: Double.self)?.isNaN == true)
            #expect(try reader.value(forKey: "minusInfinity", as: Double.self) == -.infinity)
            #expect(try reader.value(forKey: "date", as: Date.self) == fractionalDate)
            #expect(try reader.value(forKey: "controlCharacters", as: String.self) == "a\u{0}b\r\n\u{B}")
            #expect(try reader.value(forKey: "dictionaryWithAnUnsafeKey", as: [String: Int].self) == ["line\rbreak": 1])
            #expect(try reader.value(forKey: "dataThatLooksEncoded", as: Data.self) == Data([0x00] + Array("stowage".utf8) + [0x01, 0x6E]))
        }
    }

    /// Other code reading the defaults finds a boolean, a number, a string.
    @Test func valuesUserDefaultsKeepsAreWrittenAsThemselves() throws {
        defer { suites.removeAll() }
        let store = try suites.makeStore()
        let wholeSecond = Date(timeIntervalSinceReferenceDate: 800_000_000)
        try store.set(true, forKey: "flag")
        try store.set(42, forKey: "count")
        try store.set(0.1, forKey: "ratio")
        try store.set("Ada", forKey: "name")
        try store.set(Data([1, 2, 3]), forKey: "bytes")
        try store.set(wholeSecond, forKey: "when")
        try store.set(["a", "b"], forKey: "letters")
        try store.set(["x": 1], forKey: "members")

        let defaults = store.userDefaults
        #expect(defaults.object(forKey: "flag") as? Bool == true)
        #expect(defaults.bool(forKey: "flag"))
        #expect(defaults.integer(forKey: "count") == 42)
        #expect(defaults.object(forKey: "ratio") as? Double == 0.1)
        #expect(defaults.string(forKey: "name") == "Ada")
        #expect(defaults.data(forKey: "bytes") == Data([1, 2, 3]))
        #expect(defaults.object(forKey: "when") as? Date == wholeSecond)
        #expect(defaults.stringArray(forKey: "letters") == ["a", "b"])
        #expect(defaults.dictionary(forKey: "members") as? [String: Int] == ["x": 1])
    }

    /// Values other code wrote read back as the type asked for, or fail naming the key.
    @Test func valuesWrittenByOtherCodeReadAsTheTypeAskedForOrNameTheKey() throws {
        defer { suites.removeAll() }
        let store = try suites.makeStore()
        let defaults = store.userDefaults
        defaults.setAsOtherCode(true, forKey: "flag")
        defaults.setAsOtherCode(7, forKey: "count")
        defaults.setAsOtherCode(2.5, forKey: "ratio")
        defaults.setAsOtherCode(["a", "b"], forKey: "letters")
        defaults.setAsOtherCode("twelve", forKey: "notANumber")

        #expect(try store.value(forKey: "flag", as: Bool.self) == true)
        #expect(try store.value(forKey: "count", as: Int.self) == 7)
        #expect(try store.value(forKey: "ratio", as: Double.self) == 2.5)
        #expect(try store.value(forKey: "letters", as: [String].self) == ["a", "b"])
        let error = try #require(throws: StorageError.self) { try store.value(forKey: "notANumber", as: Int.self) }
        #expect(error.key == "notANumber")
        #expect(error.code == .typeMismatch)
        #expect(!error.message.contains("twelve"), "the message quotes the value: \(error.message)")
    }

    /// Bytes that start as the exact form does but are cut short give an error naming the key, and the other keys stay.
    @Test func aDamagedExactFormIsAnErrorNamingTheKey() throws {
        defer { suites.removeAll() }
        let store = try suites.makeStore()
        try store.set("kept", forKey: "other")
        try store.set(-0.0, forKey: "zero")
        let encoded = try #require(store.userDefaults.data(forKey: "zero"))
        store.userDefaults.setAsOtherCode(encoded.dropLast(3), forKey: "zero")

        let error = try #require(throws: StorageError.self) { try store.value(forKey: "zero", as: Double.self) }
        #expect(error.key == "zero")
        #expect(error.code == .invalidValue)
        #expect(try store.value(forKey: "other", as: String.self) == "kept")
    }

    /// swift-corelibs-foundation takes a suite's name as a path under
    /// ~/.config, so "../name" would write outside it: such names are an error.
    @Test func aSuiteNameThatIsAPathIsAnError() {
        for name in ["../escape", "a/b", "", "..", "nul\u{0}"] {
            #expect(throws: StorageError.self, "\(name.debugDescription)") { try UserDefaultsStore(suiteName: name) }
        }
    }
}
