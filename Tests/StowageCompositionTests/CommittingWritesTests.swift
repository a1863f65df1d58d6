import Foundation
import StowageInMemory
import StowageJSONFile
import StowageLocking
import StowageTestSupport
import Testing

/// The asynchronous writes that return once durable: `setAndCommit`,
/// `modifyAndCommit`, a removal followed by `commitPendingWrites()`, and the requirement behind them.
struct CommittingWritesTests {
    /// A write-behind file store's `setAndCommit` returned before its
    /// background write would have (a minute later): the value is in the file.
    @Test func aCommittedWriteIsInTheFileWhenItReturns() async throws {
        let directory = TemporaryDirectory()
        let store = JSONFileStore(url: directory.url("settings.json"), options: .init(writeDelay: .seconds(60), changeDetection: .none))
        try await store.setAndCommit(7, forKey: "count")
        try await store.reference(forKey: "total", as: Int.self).modifyAndCommit { $0 = ($0 ?? 40) + 2 }

        let reopened = JSONFileStore(url: directory.url("settings.json"), options: .init(changeDetection: .none))
        #expect(try reopened.value(forKey: "count", as: Int.self) == 7)
        #expect(try reopened.value(forKey: "total", as: Int.self) == 42)

        try store.removeValue(forKey: "count")
        try await store.commitPendingWrites()
        try reopened.reload()
        #expect(try reopened.value(forKey: "count", as: Int.self) == nil)
    }

    /// Through a namespace and a layered store, the commit reaches the file.
    @Test func compositionsCommitTheStoresTheyWriteTo() async throws {
        let directory = TemporaryDirectory()
        let file = JSONFileStore(url: directory.url("settings.json"), options: .init(writeDelay: .seconds(60), changeDetection: .none))
        let layered = LayeredStore([.init("memory", InMemoryStore()), .init("file", file)], writingTo: .store(file))
        try await layered.setAndCommit("dark", forKey: "theme")
        try await file.namespace("network").setAndCommit(3, forKey: "retries")

        let reopened = JSONFileStore(url: directory.url("settings.json"), options: .init(changeDetection: .none))
        #expect(try reopened.value(forKey: "theme", as: String.self) == "dark")
        #expect(try reopened.value(forKey: "network.retries", as: Int.self) == 3)
    }

    /// Concurrent `modifyAndCommit`s lose no increment, and observers see the writes.
    @Test func concurrentAsyncModificationsLoseNothing() async throws {
        let store = InMemoryStore()
        let seen = Collected<Int>()
        let token = store.reference(forKey: "count", as: Int.self).observe { seen.append($0 ?? 0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<250 { try await store.reference(forKey: "count", as: Int.self).modifyAndCommit { $0 = ($0 ?? 0) + 1 } }
                }
            }
            try await group.waitForAll()
        }
        #expect(try store.value(forKey: "count", as: Int.self) == 2_000)
        #expect(seen.all.max() == 2_000, "observers run before the write that caused them returns")
        withExtendedLifetime(token) {}
    }

    /// A layered store and a namespace await their write layer's own
    /// asynchronous compare-and-swap (a database's), rather than its
    /// synchronous one, which would block a thread for a round trip.
    @Test func compositionsAwaitTheWriteLayersAsynchronousSwap() async throws {
        let database = AsynchronouslySwappingStore()
        let layered = LayeredStore([.init("memory", InMemoryStore()), .init("database", database)], writingTo: .store(database))
        try await layered.reference(forKey: "count", as: Int.self).modifyAndCommit { $0 = ($0 ?? 0) + 1 }
        try await database.namespace("visits").reference(forKey: "count", as: Int.self).modifyAndCommit { $0 = ($0 ?? 0) + 1 }
        #expect(database.swaps.withLock { $0 } == Swaps(awaited: ["count", "visits.count"], blocking: []))
        #expect(try database.value(forKey: "count", as: Int.self) == 1)
        #expect(try database.value(forKey: "visits.count", as: Int.self) == 1)
    }
}

struct Swaps: Equatable {
    var awaited: [String] = []
    var blocking: [String] = []
}

/// A store with both compare-and-swaps, each noting the keys it was asked for.
final class AsynchronouslySwappingStore: UnderlyingStorage {
    private let entries = InMemoryStore()
    let swaps = Locked(Swaps())

    func storedValue(forKey key: String, _ access: BackendAccess) -> StoredValue? { entries.storedValue(forKey: key, access) }
    func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) { entries.setStoredValue(value, forKey: key, access) }
    func removeStoredValue(forKey key: String, _ access: BackendAccess) { entries.removeStoredValue(forKey: key, access) }

    static var replacesAtomically: Bool { true }

    func replaceStoredValue(forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?, _ access: BackendAccess) throws -> Bool {
        swaps.withLock { $0.blocking.append(key) }
        return entries.replaceStoredValue(forKey: key, expecting: expected, with: newValue, access)
    }

    func replaceStoredValue(
        forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?, _ access: BackendAccess
    ) async throws -> Bool {
        swaps.withLock { $0.awaited.append(key) }
        return swapEntries(forKey: key, expecting: expected, with: newValue, access)
    }

    /// The entries' synchronous swap, named apart: in an async function the call would resolve to the async default.
    private func swapEntries(forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?, _ access: BackendAccess) -> Bool {
        entries.replaceStoredValue(forKey: key, expecting: expected, with: newValue, access)
    }
}
