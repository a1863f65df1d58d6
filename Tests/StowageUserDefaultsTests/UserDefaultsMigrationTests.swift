import Foundation
import StowageJSONFile
import StowageTestSupport
import StowageUserDefaults
import Testing

/// Values written to `UserDefaults` the way Foil, Defaults and EFStorage
/// write them (reproduced from their sources' documented forms, not by
/// depending on them), migrated into a JSON file store.
struct UserDefaultsMigrationTests {
    struct Profile: Codable, Storable, Equatable {
        var name: String
        var joined: Date
        var tags: [String]
    }

    enum Theme: String, Codable, Storable {
        case light, dark
    }

    enum Level: Int, Codable, Storable {
        case low = 1, high = 10
    }

    let suites = TemporarySuites()
    let directory = TemporaryDirectory()
    let profile = Profile(name: "Ada", joined: Date(timeIntervalSinceReferenceDate: 700_000_000.5), tags: ["a", "b"])

    /// A store over a new file, read back from a second instance, so what is checked is what reached the file.
    func fileStore(_ name: String = "settings.json") -> JSONFileStore {
        JSONFileStore(url: directory.url(name))
    }

    /// The values UserDefaults keeps as themselves, which every library writes so.
    func writeNativeValues(to defaults: UserDefaults) {
        defaults.setAsOtherCode(true, forKey: "flag")
        defaults.setAsOtherCode(42, forKey: "count")
        defaults.setAsOtherCode(2.5, forKey: "ratio")
        defaults.setAsOtherCode("Ada", forKey: "name")
        defaults.setAsOtherCode(Data([1, 2, 3]), forKey: "bytes")
        defaults.setAsOtherCode(Date(timeIntervalSinceReferenceDate: 800_000_000), forKey: "when")
        defaults.setAsOtherCode(["x", "y"], forKey: "letters")
        defaults.setAsOtherCode(["a": 1, "b": 2], forKey: "scores")
    }

    var nativeKeys: [MigratedKey] {
        [
            .key("flag", as: Bool.self), .key("count", as: Int.self), .key("ratio", as: Double.self),
            .key("name", as: String.self), .key("bytes", as: Data.self), .key("when", as: Date.self),
            .key("letters", as: [String].self), .key("scores", as: [String: Int].self),
        ]
    }

    func expectNativeValues(in store: JSONFileStore) throws {
        #expect(try store.value(forKey: "flag", as: Bool.self) == true)
        #expect(try store.value(forKey: "count", as: Int.self) == 42)
        #expect(try store.value(forKey: "ratio", as: Double.self) == 2.5)
        #expect(try store.value(forKey: "name", as: String.self) == "Ada")
        #expect(try store.value(forKey: "bytes", as: Data.self) == Data([1, 2, 3]))
        #expect(try store.value(forKey: "when", as: Date.self) == Date(timeIntervalSinceReferenceDate: 800_000_000))
        #expect(try store.value(forKey: "letters", as: [String].self) == ["x", "y"])
        #expect(try store.value(forKey: "scores", as: [String: Int].self) == ["a": 1, "b": 2])
    }

    /// Foil: `Codable` as JSON bytes from `JSONEncoder()`, raw values as
    /// themselves, a URL through `UserDefaults`' own URL setter (an archive
    /// of `NSURL` on Apple platforms, written here with `NSKeyedArchiver`).
    @Test func fromFoil() throws {
        defer { suites.removeAll() }
        let defaults = try suites.makeStore().userDefaults
        writeNativeValues(to: defaults)
        defaults.setAsOtherCode(try JSONEncoder().encode(profile), forKey: "profile")
        defaults.setAsOtherCode("dark", forKey: "theme")
        defaults.setAsOtherCode(10, forKey: "level")
        let url = URL(string: "https://example.com/a?b=1")!
        defaults.setAsOtherCode(try NSKeyedArchiver.archivedData(withRootObject: url as NSURL, requiringSecureCoding: false), forKey: "homepage")
        // Foil on Linux, where UserDefaults keeps a URL as its path.
        defaults.setAsOtherCode("/tmp/notes.txt", forKey: "notes")
        // Not an archive: UserDefaults.url(forKey:) trapped on it.
        defaults.setAsOtherCode(Data([1, 2, 3]), forKey: "brokenHomepage")

        let report = try fileStore().migrate(
            from: defaults, writtenBy: .foil,
            keys: nativeKeys + [
                .key("profile", as: Profile.self), .key("theme", as: Theme.self), .key("level", as: Level.self),
                .key("homepage", as: URL.self), .key("notes", as: URL.self), .key("brokenHomepage", as: URL.self),
                .key("neverWritten", as: Int.self),
            ])
        #expect(report.failures.map(\.key) == ["brokenHomepage"], "\(report)")
        #expect(report.absentKeys == ["neverWritten"])
        let store = fileStore()
        try expectNativeValues(in: store)
        #expect(try store.value(forKey: "profile", as: Profile.self) == profile)
        #expect(try store.value(forKey: "theme", as: Theme.self) == .dark)
        #expect(try store.value(forKey: "level", as: Level.self) == .high)
        #expect(try store.value(forKey: "homepage", as: URL.self) == url)
        #expect(try store.value(forKey: "notes", as: URL.self) == URL(filePath: "/tmp/notes.txt"))
        #expect(try store.value(forKey: "brokenHomepage", as: URL.self) == nil)
    }

    /// Foil keeps an array, a set or a dictionary of `Codable` values element
    /// by element, each its own JSON bytes; an array of `Data` is itself.
    @Test func fromFoilCollectionsOfCodableValues() throws {
        defer { suites.removeAll() }
        let defaults = try suites.makeStore().userDefaults
        let other = Profile(name: "Grace", joined: Date(timeIntervalSinceReferenceDate: 0), tags: [])
        defaults.setAsOtherCode([try JSONEncoder().encode(profile), try JSONEncoder().encode(other)], forKey: "team")
        defaults.setAsOtherCode([try JSONEncoder().encode(profile)], forKey: "members")
        defaults.setAsOtherCode(["lead": try JSONEncoder().encode(profile), "second": try JSONEncoder().encode(other)], forKey: "roles")
        defaults.setAsOtherCode([Data([1, 2]), Data([3])], forKey: "blobs")

        let report = try fileStore().migrate(
            from: defaults, writtenBy: .foil,
            keys: [
                .key("team", as: [Profile].self), .key("members", as: Set<String>.self), .key("roles", as: [String: Profile].self),
                .key("blobs", as: [Data].self),
            ])
        // A set of strings is not what Foil wrote for "members": reported, not guessed.
        #expect(report.failures.map(\.key) == ["members"], "\(report)")
        let store = fileStore()
        #expect(try store.value(forKey: "team", as: [Profile].self) == [profile, other])
        #expect(try store.value(forKey: "roles", as: [String: Profile].self) == ["lead": profile, "second": other])
        #expect(try store.value(forKey: "blobs", as: [Data].self) == [Data([1, 2]), Data([3])])
    }

    /// The guide's own case: moving from Foil to a store over the same
    /// defaults, the key keeping its name. The value Foil wrote is the value
    /// the store holds, and is converted where it is, once; the wrapper then reads it.
    @Test func fromFoilInPlace() throws {
        defer { suites.removeAll() }
        let store = try suites.makeStore()
        let defaults = store.userDefaults
        defaults.setAsOtherCode(try JSONEncoder().encode(profile), forKey: "profile")
        defaults.setAsOtherCode(3, forKey: "launchCount")
        let reference = store.reference(forKey: "profile", as: Profile.self)
        #expect(reference.value == nil)

        let keys: [MigratedKey] = [.key("profile", as: Profile.self), .key("launchCount", as: Int.self)]
        let report = try store.migrate(from: defaults, writtenBy: .foil, keys: keys, removingMigratedKeys: true)
        #expect(report.migratedKeys == ["profile"], "\(report)")
        #expect(report.keysAlreadyInTarget == ["launchCount"])
        #expect(report.failures.isEmpty)
        #expect(reference.value == profile)
        // Converted in place, so not removed as a migrated key would be.
        #expect(try UserDefaultsStore(suiteName: try #require(store.suiteName)).value(forKey: "profile", as: Profile.self) == profile)
        #expect(try store.value(forKey: "launchCount", as: Int.self) == 3)

        #expect(try store.migrate(from: defaults, writtenBy: .foil, keys: keys).wasAlreadyDone)
    }

    /// Defaults 5 and later: `Codable` as a JSON string (keys sorted), a URL
    /// as a JSON string, a `Codable` enum as JSON (`"\"dark\""`, `"10"`), an
    /// array of `Codable` values as an array of JSON strings.
    @Test func fromDefaults() throws {
        defer { suites.removeAll() }
        let defaults = try suites.makeStore().userDefaults
        writeNativeValues(to: defaults)
        let sortedEncoder = JSONEncoder()
        sortedEncoder.outputFormatting = .sortedKeys
        defaults.setAsOtherCode(String(decoding: try sortedEncoder.encode(profile), as: UTF8.self), forKey: "profile")
        defaults.setAsOtherCode(#""https:\/\/sindresorhus.com\/defaults""#, forKey: "homepage")
        defaults.setAsOtherCode(#""dark""#, forKey: "theme")
        defaults.setAsOtherCode("10", forKey: "level")
        defaults.setAsOtherCode(
            [try sortedEncoder.encode(profile), try sortedEncoder.encode(profile)].map { String(decoding: $0, as: UTF8.self) }, forKey: "team")
        defaults.setAsOtherCode([#""https:\/\/a.example\/x""#, #""https:\/\/b.example""#], forKey: "mirrors")
        // A String that looks like JSON is still a String.
        defaults.setAsOtherCode(#""quoted""#, forKey: "quotedName")
        defaults.setAsOtherCode([#""quoted""#], forKey: "quotedNames")

        let report = try fileStore().migrate(
            from: defaults, writtenBy: .defaults,
            keys: nativeKeys + [
                .key("profile", as: Profile.self), .key("homepage", as: URL.self), .key("theme", as: Theme.self),
                .key("level", as: Level.self), .key("team", as: [Profile].self), .key("quotedName", as: String.self),
                .key("mirrors", as: [URL].self), .key("quotedNames", as: [String].self),
            ])
        #expect(report.failures.isEmpty, "\(report)")
        let store = fileStore()
        try expectNativeValues(in: store)
        #expect(try store.value(forKey: "profile", as: Profile.self) == profile)
        #expect(try store.value(forKey: "homepage", as: URL.self) == URL(string: "https://sindresorhus.com/defaults"))
        #expect(try store.value(forKey: "theme", as: Theme.self) == .dark)
        #expect(try store.value(forKey: "level", as: Level.self) == .high)
        #expect(try store.value(forKey: "team", as: [Profile].self) == [profile, profile])
        #expect(try store.value(forKey: "quotedName", as: String.self) == #""quoted""#)
        // Each element is JSON text; read as it is, a URL would have kept the quotes, percent-encoded.
        #expect(try store.value(forKey: "mirrors", as: [URL].self) == [URL(string: "https://a.example/x")!, URL(string: "https://b.example")!])
        #expect(try store.value(forKey: "quotedNames", as: [String].self) == [#""quoted""#])
    }

    /// Defaults 1 to 4: every value other than the basic scalars as one JSON string, arrays included.
    @Test func fromDefaultsVersion4() throws {
        defer { suites.removeAll() }
        let defaults = try suites.makeStore().userDefaults
        defaults.setAsOtherCode("[0,1]", forKey: "numbers")
        defaults.setAsOtherCode("5", forKey: "small")
        defaults.setAsOtherCode(#"{"a":1}"#, forKey: "scores")

        let report = try fileStore().migrate(
            from: defaults, writtenBy: .defaults,
            keys: [.key("numbers", as: [Int].self), .key("small", as: UInt8.self), .key("scores", as: [String: Int].self)])
        #expect(report.failures.isEmpty, "\(report)")
        let store = fileStore()
        #expect(try store.value(forKey: "numbers", as: [Int].self) == [0, 1])
        #expect(try store.value(forKey: "small", as: UInt8.self) == 5)
        #expect(try store.value(forKey: "scores", as: [String: Int].self) == ["a": 1])
    }

    /// EFStorage: `Codable` as JSON bytes, a URL as its `absoluteString`, an
    /// `NSCoding` object as a keyed archive, which is reported, not guessed at.
    @Test func fromEFStorage() throws {
        defer { suites.removeAll() }
        let defaults = try suites.makeStore().userDefaults
        writeNativeValues(to: defaults)
        defaults.setAsOtherCode(try JSONEncoder().encode(profile), forKey: "profile")
        defaults.setAsOtherCode("https://example.com/a?b=1", forKey: "homepage")
        defaults.setAsOtherCode(Int8(-3), forKey: "small")
        defaults.setAsOtherCode(try NSKeyedArchiver.archivedData(withRootObject: "archived" as NSString, requiringSecureCoding: false), forKey: "archived")

        let report = try fileStore().migrate(
            from: defaults, writtenBy: .efStorage,
            keys: nativeKeys + [
                .key("profile", as: Profile.self), .key("homepage", as: URL.self), .key("small", as: Int8.self),
                .key("archived", as: String.self),
            ])
        #expect(report.failures.map(\.key) == ["archived"])
        #expect(report.failures.first?.message.contains("String") == true, "\(report)")
        let store = fileStore()
        try expectNativeValues(in: store)
        #expect(try store.value(forKey: "profile", as: Profile.self) == profile)
        #expect(try store.value(forKey: "homepage", as: URL.self) == URL(string: "https://example.com/a?b=1"))
        #expect(try store.value(forKey: "small", as: Int8.self) == -3)
        #expect(try store.value(forKey: "archived", as: String.self) == nil)
    }

    /// Run again, it reads and writes nothing, though UserDefaults changed;
    /// a value the store already held is kept; a failure names the key and
    /// the type and leaves the value in UserDefaults.
    @Test func runsOnceKeepsNewerValuesAndReportsFailures() throws {
        defer { suites.removeAll() }
        let defaults = try suites.makeStore().userDefaults
        defaults.setAsOtherCode(3, forKey: "count")
        defaults.setAsOtherCode("light", forKey: "theme")
        defaults.setAsOtherCode("not a number", forKey: "limit")
        let store = fileStore()
        try store.set(Theme.dark, forKey: "theme")
        let keys: [MigratedKey] = [.key("count", as: Int.self), .key("theme", as: Theme.self), .key("limit", as: Int.self)]

        let first = try store.migrate(from: defaults, writtenBy: .plain, keys: keys, removingMigratedKeys: true)
        #expect(first.migratedKeys == ["count"])
        #expect(first.keysAlreadyInTarget == ["theme"])
        let failure = try #require(first.failures.first)
        #expect(first.failures.count == 1)
        #expect(failure.key == "limit")
        #expect(failure.message.contains("Int"))
        #expect(!failure.message.contains("not a number"), "the message quotes the value: \(failure.message)")
        #expect(defaults.object(forKey: "count") == nil, "a migrated key stays in UserDefaults")
        #expect(defaults.string(forKey: "limit") == "not a number", "a failed key was removed from UserDefaults")
        #expect(try store.value(forKey: "theme", as: Theme.self) == .dark)

        try store.removeValue(forKey: "count")
        defaults.setAsOtherCode(4, forKey: "count")
        let second = try store.migrate(from: defaults, writtenBy: .plain, keys: keys)
        #expect(second.wasAlreadyDone)
        #expect(try store.value(forKey: "count", as: Int.self) == nil, "a second run brought back a removed value")
        #expect(try fileStore().value(forKey: "stowage.migrations.userDefaults.plain", as: Date.self) != nil)
    }
}
