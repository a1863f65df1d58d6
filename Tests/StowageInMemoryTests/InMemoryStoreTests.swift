import StowageInMemory
import Testing

struct InMemoryStoreTests {
    @Test func aDictionaryLiteralSeedsTheStore() throws {
        let store: InMemoryStore = ["launchCount": 41, "user.name": "Ada", "ratio": 0.5]
        #expect(try store.value(forKey: "launchCount", as: Int.self) == 41)
        #expect(try store.value(forKey: "user.name", as: String.self) == "Ada")
        #expect(try store.value(forKey: "ratio", as: Double.self) == 0.5)
    }

    @Test func newStoresAreIsolatedFromEachOtherAndTheDefault() throws {
        let first = InMemoryStore()
        let second = InMemoryStore()
        let key = "isolation.\(UInt64.random(in: 0...UInt64.max))"
        try first.set(1, forKey: key)
        #expect(try second.value(forKey: key, as: Int.self) == nil)
        #expect(try InMemoryStore.default.value(forKey: key, as: Int.self) == nil)
    }

    @Test func theDefaultStoreIsOneInstance() {
        #expect(InMemoryStore.default === InMemoryStore.default)
    }

    @Test func snapshotCopiesAndRestoreReplacesEverything() throws {
        let store: InMemoryStore = ["a": 1, "b": 2]
        let snapshot = store.snapshot()
        try store.set(3, forKey: "a")
        try store.set(4, forKey: "c")
        store.restore(snapshot)
        #expect(store.snapshot() == ["a": 1, "b": 2])
    }

    @Test func restoreAnnouncesExactlyTheKeysWhoseValueChanged() async {
        let store: InMemoryStore = ["same": 1, "changed": 2, "removed": 3]
        var changes = store.changes.makeAsyncIterator()
        store.restore(["same": 1, "changed": 20, "added": 4])
        var announced: Set<String> = []
        for _ in 0..<3 {
            if case .key(let key) = await changes.next() { announced.insert(key) }
        }
        #expect(announced == ["changed", "removed", "added"])
        // Nothing else was announced: the next change seen is this marker.
        try? store.set(0, forKey: "marker")
        #expect(await changes.next() == .key("marker"))
    }

    @Test func restoreReachesCachedReferences() {
        let store: InMemoryStore = ["count": 1]
        let reference = store.reference(forKey: "count", as: Int.self)
        #expect(reference.value == 1)
        store.restore(["count": 2])
        #expect(reference.value == 2)
    }

    @Test func removeAllEmptiesTheStoreAndNotifiesReferences() {
        let store: InMemoryStore = ["a": 1, "b": 2]
        let reference = store.reference(forKey: "a", as: Int.self)
        #expect(reference.value == 1)
        store.removeAll()
        #expect(store.snapshot().entries.isEmpty)
        #expect(reference.value == nil)
    }

    @Test func compareAndSwapReplacesOnlyTheExpectedValue() {
        let store: InMemoryStore = ["k": 1]
        #expect(store.replaceStoredValue(forKey: "k", expecting: 2, with: 3, .granted) == false)
        #expect(store.storedValue(forKey: "k", .granted) == 1)
        #expect(store.replaceStoredValue(forKey: "k", expecting: 1, with: 3, .granted))
        #expect(store.replaceStoredValue(forKey: "absent", expecting: nil, with: 5, .granted))
        #expect(store.replaceStoredValue(forKey: "k", expecting: 3, with: nil, .granted))
        #expect(store.snapshot() == ["absent": 5])
    }

    @Test func wrappersOnTheDefaultStoreNeedNoStoreArgument() {
        struct Settings: Sendable {
            @InMemoryStorage("inMemoryTests.launchCount") var launchCount = 0
            @InMemoryStorage("inMemoryTests.name") var name: String?
        }
        let settings = Settings()
        settings.launchCount += 2
        settings.name = "Ada"
        #expect(InMemoryStore.default.storedValue(forKey: "inMemoryTests.launchCount", .granted) == 2)
        let name: String? = InMemoryStore.default.values[dynamicMember: "inMemoryTests.name"]
        #expect(name == "Ada")
        settings.name = nil
        #expect(InMemoryStore.default.storedValue(forKey: "inMemoryTests.name", .granted) == nil)
    }
}
