import Stowage
import Testing

extension StorageKeys {
    static let retries = StorageKey<Int>("net.retries", default: 3)
    static let nickname = StorageKey<String?>("user.nickname")
    static let themeKey = StorageKey<Theme>("theme", default: .dark)
}

struct TypedKeyTests {
    @Test func subscriptReadsTheDefaultAndWrites() {
        let store = CountingStore()
        #expect(store[.retries] == 3)
        store[.retries] += 1
        #expect(store[.retries] == 4)
        #expect(store.storedValue(forKey: "net.retries") == 4)
    }

    @Test func optionalKeysDefaultToNilAndRemoveOnNil() {
        let store = CountingStore()
        #expect(store[.nickname] == nil)
        store[.nickname] = "Ada"
        #expect(store.storedValue(forKey: "user.nickname") == "Ada")
        store[.nickname] = nil
        #expect(store.storedValue(forKey: "user.nickname") == nil)
    }

    @Test func aWrapperFromATypedKeySharesTheKeysNameAndDefault() {
        let store = CountingStore()
        @Stored(.retries, in: store) var retries
        #expect(retries == 3)
        retries = 8
        #expect(store[.retries] == 8)
        #expect($retries.key == "net.retries")
    }

    @Test func persistDefaultWorksFromATypedKey() {
        let store = CountingStore()
        @Stored(.themeKey, in: store, persistDefault: true) var theme
        #expect(theme == .dark)
        #expect(store.storedValue(forKey: "theme") == "dark")
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
        #expect(store.storedValue(forKey: "launchCount") == nil)
    }

    @Test func referencesReturnTheSharedReference() {
        let store = CountingStore()
        let reference: StorageReference<CountingStore, Int> = store.references.launchCount
        #expect(reference === store.reference(forKey: "launchCount", as: Int.self))
    }

    @Test func valuesUseALiveReferencesCacheForValuesThatCostADecode() throws {
        let store = CountingStore()
        let reference = store.reference(forKey: "profile", as: Profile.self)
        reference.content = Profile(name: "Ada")
        _ = reference.content  // fills the cache: a write leaves it for the next read of such a value
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
        reference.content = 1
        let reads = store.reads
        let count: Int? = store.values.count
        #expect(count == 1)
        #expect(store.reads == reads + 1)
    }
}
