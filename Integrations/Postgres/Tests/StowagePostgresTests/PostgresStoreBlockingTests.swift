import Foundation
import NIOCore
import NIOPosix
import StowagePostgres
import Testing

/// The synchronous API waits on the network without deadlocking, from any
/// context, and the async forms do not block at all.
@Suite(.runsStores)
struct PostgresStoreBlockingTests {
    /// Far more tasks than the cooperative pool has threads, each blocking
    /// in the synchronous `modify`: the store's own work runs on a thread of
    /// its own, so none of them waits forever, and no increment is lost.
    @Test func blockingModifiesFromManyTasksAllFinish() async throws {
        let database = try TestDatabase.shared()
        let store = try await database.openStore(namespace: TestDatabase.uniqueNamespace())
        let counter = store.reference(forKey: "counter", as: Int.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<16 {
                group.addTask { for _ in 0..<20 { try counter.modify { $0 = ($0 ?? 0) + 1 } } }
            }
            try await group.waitForAll()
        }
        #expect(counter.value == 320)
    }

    /// `modifyAndCommit` from async code: concurrent tasks lose nothing, and
    /// the result is committed when it returns.
    @Test func asyncModificationsAreCommittedWhenTheyReturn() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let store = try await database.openStore(namespace: namespace)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<25 { try await store.reference(forKey: "counter", as: Int.self).modifyAndCommit { $0 = ($0 ?? 0) + 1 } }
                }
            }
            try await group.waitForAll()
        }
        let other = try await database.openStore(namespace: namespace)
        #expect(try other.value(forKey: "counter", as: Int.self) == 200)
    }

    /// On a SwiftNIO event loop thread, which the connections may be bound
    /// to, a blocking call fails at once naming the async form to use,
    /// instead of waiting for a loop it is blocking; reads and queued writes work there.
    @Test func aBlockingCallOnAnEventLoopFailsAtOnceNamingTheAsyncForm() async throws {
        let database = try TestDatabase.shared()
        let store = try await database.openStore(namespace: TestDatabase.uniqueNamespace())
        let loop = MultiThreadedEventLoopGroup.singleton.any()
        let outcome = try await loop.submit { () -> (String?, Int?) in
            try? store.set(5, forKey: "count")
            let read = try? store.value(forKey: "count", as: Int.self)
            do {
                try store.reference(forKey: "count", as: Int.self).modify { $0 = ($0 ?? 0) + 1 }
                return (nil, read)
            } catch {
                return ("\(error)", read)
            }
        }.get()
        #expect(outcome.1 == 5)
        #expect(outcome.0?.contains("event loop") == true, "\(outcome.0 ?? "no error")")
        #expect(outcome.0?.contains("modifyAndCommit") == true, "\(outcome.0 ?? "no error")")
        try await store.commitPendingWrites()
    }

    /// An observer, called when another store's change is loaded, may use
    /// the blocking API: announcements never run on the store's own thread.
    @Test func anObserverMayCallTheBlockingAPI() async throws {
        let database = try TestDatabase.shared()
        let namespace = TestDatabase.uniqueNamespace()
        let store = try await database.openStore(namespace: namespace)
        let other = try await database.openStore(namespace: namespace)
        let seen = AsyncStream<Int>.makeStream()
        let token = store.reference(forKey: "trigger", as: Int.self).observe { value in
            try? store.reference(forKey: "echo", as: Int.self).modify { $0 = value }
            try? store.flush()
            seen.continuation.yield(value ?? 0)
        }
        try await other.setAndCommit(42, forKey: "trigger")
        try await store.reload()
        #expect(try await firstElement(of: seen.stream) { _ in true } == 42)
        #expect(try store.value(forKey: "echo", as: Int.self) == 42)
        withExtendedLifetime(token) {}
    }
}
