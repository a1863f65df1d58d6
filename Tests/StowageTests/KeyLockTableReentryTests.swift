import Stowage
import StowageLocking
import Testing

/// A store whose method calls back into Stowage gets a clear error at once,
/// for any key, instead of waiting forever for a lock its own thread holds.
struct KeyLockTableReentryTests {
    /// A store that writes a second key through Stowage's API from inside its
    /// own setStoredValue, as a newcomer might to keep an index up to date.
    final class IndexingStore: UnderlyingStorage {
        let entries = Locked<[String: StoredValue]>([:])
        let indexKey: String
        let indexMany: Bool
        let errors = Locked<[StorageError]>([])
        /// Set once the store has called back, so a call back that is let through does not recurse.
        let calledBack = Locked(false)

        init(indexKey: String, indexMany: Bool = false) {
            self.indexKey = indexKey
            self.indexMany = indexMany
        }

        func storedValue(forKey key: String, _: BackendAccess) -> StoredValue? { entries.withLock { $0[key] } }

        func setStoredValue(_ value: StoredValue, forKey key: String, _: BackendAccess) throws {
            entries.withLock { $0[key] = value }
            guard !calledBack.withLock({ $0 }), key == "launchCount" else { return }
            calledBack.withLock { $0 = true }
            do {
                if indexMany {
                    // A key migration swaps both keys at once, through the table's multi-key path.
                    entries.withLock { $0["many.a"] = "moved" }
                    _ = try migrateValue(from: "many.a", as: String.self, to: "many.b", as: String.self) { $0 }
                } else {
                    try set(key, forKey: indexKey)
                }
            } catch let error as StorageError {
                errors.withLock { $0.append(error) }
                throw error
            }
        }

        func removeStoredValue(forKey key: String, _: BackendAccess) {
            _ = entries.withLock { $0.removeValue(forKey: key) }
        }
    }

    @Test(arguments: ["sameKey", "otherKey"])
    func aStoreWritingThroughStowageFromItsOwnMethodFailsAtOnce(indexKey: String) throws {
        // "sameKey": the store writes the key it is setting; on the code before, this waited forever.
        let store = IndexingStore(indexKey: indexKey == "sameKey" ? "launchCount" : "lastWritten")
        let error = try #require(throws: StorageError.self) { try store.set(1, forKey: "launchCount") }
        #expect(error.code == .storeFailure)
        #expect(error.message.contains("IndexingStore called back into Stowage"), "\(error.message)")
        #expect(store.errors.withLock { $0.first?.key } == store.indexKey)
        // The store's own change is kept; the lock was let go, so the next write works.
        #expect(store.entries.withLock { $0["launchCount"] } == 1)
    }

    @Test func aCallBackThroughTheMultiKeyPathFailsAtOnce() throws {
        let store = IndexingStore(indexKey: "unused", indexMany: true)
        let error = try #require(throws: StorageError.self) { try store.set(1, forKey: "launchCount") }
        #expect(error.code == .storeFailure)
        #expect(store.errors.withLock { $0.first?.key } == "many.a")
    }

    @Test func aStoreThatKeepsToItsOwnStorageIsNotFlagged() throws {
        let store = IndexingStore(indexKey: "index")
        // Only a write of launchCount calls back; these, on this thread and after an error, work as ever.
        try store.set("x", forKey: "index")
        #expect(try store.value(forKey: "index", as: String.self) == "x")
        #expect(throws: StorageError.self) { try store.set(1, forKey: "launchCount") }
        try store.set("y", forKey: "index")
        #expect(try store.value(forKey: "index", as: String.self) == "y")
        #expect(try store.reference(forKey: "index", as: String.self).modify { $0 = "z" } == ())
        #expect(try store.value(forKey: "index", as: String.self) == "z")
    }
}
