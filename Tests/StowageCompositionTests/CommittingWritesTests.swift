import Foundation
import StowageInMemory
import StowageJSONFile
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
        try await store.reference(forKey: "total", as: Int.self).modifyAndCommit(default: 40) { $0 += 2 }

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
                    for _ in 0..<250 { try await store.reference(forKey: "count", as: Int.self).modifyAndCommit(default: 0) { $0 += 1 } }
                }
            }
            try await group.waitForAll()
        }
        #expect(try store.value(forKey: "count", as: Int.self) == 2_000)
        #expect(seen.all.max() == 2_000, "observers run before the write that caused them returns")
        withExtendedLifetime(token) {}
    }
}
