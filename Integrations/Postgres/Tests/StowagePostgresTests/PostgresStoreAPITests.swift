@testable import StowagePostgres
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

    /// The bounds the options state hold for fields set after `init` too,
    /// as a configuration built field by field sets them. Before, only
    /// `init` applied them: a batch size of 0 made the first commit take
    /// the last of no writes and trap, and a keep-alive interval of 0 would
    /// have spun on the stores' one thread.
    @Test func optionsSetAfterInitAreKeptWithinTheirBounds() async throws {
        var options = PostgresStore.Options()
        options.maximumBatchSize = 0
        options.maximumQueuedWrites = 0
        options.maximumConnections = 0
        options.heartbeatInterval = .zero
        options.initialRetryDelay = .zero
        options.maximumRetryDelay = .zero
        options.resynchronizationInterval = .zero
        options.historyPruningInterval = .zero
        let store = try await TestDatabase.shared().openStore(namespace: TestDatabase.uniqueNamespace(), options: options)
        #expect(store.options.maximumBatchSize == 1)
        #expect(store.options.maximumQueuedWrites == 1)
        #expect(store.options.maximumConnections == 2)
        #expect(store.options.heartbeatInterval == .milliseconds(10))
        #expect(store.options.initialRetryDelay == .milliseconds(1))
        #expect(store.options.maximumRetryDelay == .milliseconds(1))
        #expect(store.options.resynchronizationInterval == .milliseconds(10))
        #expect(store.options.historyPruningInterval == .milliseconds(10))

        try await store.setAndCommit("committed", forKey: "motto")
        #expect(try await TestDatabase.shared().tableEntries(namespace: store.namespace)["motto"] == "committed")
        var timeout = PostgresStore.Options()
        timeout.operationTimeout = .zero
        #expect(timeout.bounded.operationTimeout == .milliseconds(1), "a zero timeout would turn the server's statement_timeout off")
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
