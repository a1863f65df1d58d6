import StowagePostgres
import Testing

/// What every store offers, on this one: the wrapper, dynamic member
/// lookup, typed keys and observation, each reaching a second store through
/// the database.
@Suite(.runsStores)
struct PostgresStoreAPITests {
    enum Keys: StorageKeyGroup {
        static let limit = key("limit", default: 10)
    }

    struct Settings {
        @PostgresStorage<String> var banner: String
        init(store: PostgresStore) { _banner = PostgresStorage(wrappedValue: "Welcome", "banner", in: store) }
    }

    @Test func wrappersLookupTypedKeysAndObserversWork() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let store = try await database.openStore(namespace: namespace)
        let settings = Settings(store: store)
        let observed = AsyncStream<String?>.makeStream()
        let token = store.reference(forKey: "banner", as: String.self).observe { observed.continuation.yield($0) }

        #expect(settings.banner == "Welcome")
        settings.banner = "Sale"
        store.values.visits += 1
        store.values.visits += 1
        store[Keys.limit] = 25
        try await store.commitPendingWrites()

        var iterator = observed.stream.makeAsyncIterator()
        #expect(await iterator.next() == "Sale")
        let other = try await database.openStore(namespace: namespace)
        #expect(Settings(store: other).banner == "Sale")
        #expect(other[Keys.limit] == 25)
        let visits: Int? = other.values.visits
        #expect(visits == 2)
        withExtendedLifetime(token) {}
    }
}
