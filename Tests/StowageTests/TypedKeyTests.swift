import Stowage
import StowageTestSupport
import Testing

extension StorageKeys {
    static let retries = StorageKey<Int>("net.retries", default: 3)
    static let nickname = StorageKey<String?>("user.nickname", default: nil)
    static let themeKey = StorageKey<Theme>("theme", default: .dark)
}

struct TypedKeyTests {
    @Test func subscriptReadsTheDefaultAndWrites() {
        let store = CountingStore()
        #expect(store[.retries] == 3)
        store[.retries] += 1
        #expect(store[.retries] == 4)
        #expect(store.storedValue(forKey: "net.retries", .granted) == 4)
    }

    @Test func optionalKeysDefaultToNilAndRemoveOnNil() {
        let store = CountingStore()
        #expect(store[.nickname] == nil)
        store[.nickname] = "Ada"
        #expect(store.storedValue(forKey: "user.nickname", .granted) == "Ada")
        store[.nickname] = nil
        #expect(store.storedValue(forKey: "user.nickname", .granted) == nil)
    }

    @Test func aWrapperFromATypedKeySharesTheKeysNameAndDefault() {
        let store = CountingStore()
        @Stored(.retries, in: store) var retries
        #expect(retries == 3)
        retries = 8
        #expect(store[.retries] == 8)
        #expect($retries.reference.key == "net.retries")
    }

    @Test func persistDefaultWorksFromATypedKey() {
        let store = CountingStore()
        @Stored(.themeKey, in: store, persistsDefault: true) var theme
        #expect(theme == .dark)
        #expect(store.storedValue(forKey: "theme", .granted) == "dark")
    }
}

struct DynamicLookupTests {
    @Test func valuesReadAndWriteWithTheTypeInferred() {
        let store = CountingStore()
        store.values.launchCount = 5
        let count: Int? = store.values.launchCount
        #expect(count == 5)
        let asText: String? = store.values.launchCount
        #expect(asText == nil, "a type mismatch reads as nil through dynamic lookup")
        store.values.launchCount = Int?.none
        #expect(store.storedValue(forKey: "launchCount", .granted) == nil)
    }

    /// The lines a newcomer writes first (issue 14): none of them compiled before.
    @Test func theFirstLinesANewcomerWritesWork() {
        let store = CountingStore()
        store.values.count += 1  // absent: counts from zero
        store.values.count += 1
        #expect(store.storedValue(forKey: "count", .granted) == 2)
        store.values.ratio += 0.5
        #expect(store.storedValue(forKey: "ratio", .granted) == .double(0.5))
        store.values.count = nil  // removes, whatever the type
        #expect(store.storedValue(forKey: "count", .granted) == nil)
        store.values.name = "Ada"
        store.values.name = nil
        #expect(store.storedValue(forKey: "name", .granted) == nil)
        let absent: Int = store.values.count  // a number reads as zero while absent
        #expect(absent == 0)
    }

    @Test func aNumberThatCanNotBeReadCountsFromZeroAndIsReported() {
        ReportedErrors.install()
        let store = CountingStore()
        let key = uniqueKey()
        store.values[dynamicMember: key] = "not a number"
        let number: Int = store.values[dynamicMember: key]
        #expect(number == 0)
        #expect(!ReportedErrors.forKey(key).isEmpty, "the unreadable value is reported, not silently taken for zero")
    }

    @Test func valuesUseALiveReferencesCacheForValuesThatCostADecode() throws {
        let store = CountingStore()
        let reference = store.reference(forKey: "profile", as: Profile.self)
        reference.value = Profile(name: "Ada")
        _ = reference.value  // fills the cache: a write leaves it for the next read of such a value
        let reads = store.reads
        let profile: Profile? = store.values.profile
        #expect(profile?.name == "Ada")
        #expect(store.reads == reads)
        #expect(try store.value(forKey: "profile", as: Profile.self)?.name == "Ada")
        #expect(store.reads == reads)
    }

    /// A word-sized value decodes faster than a live reference is found.
    @Test func valuesReadWordSizedValuesStraightFromTheStore() throws {
        let store = CountingStore()
        let reference = store.reference(forKey: "count", as: Int.self)
        reference.value = 1
        let reads = store.reads
        let count: Int? = store.values.count
        #expect(count == 1)
        #expect(store.reads == reads + 1)
    }
}
