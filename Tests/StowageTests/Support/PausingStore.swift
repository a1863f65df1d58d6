import Dispatch
import Stowage

/// A store whose next read can be held after it has taken its value, so a
/// test can order a slow read against a change and against other reads.
final class PausingStore: UnderlyingStorage {
    private let entries: Locked<[String: StoredValue]>
    private let isNextReadPaused = Locked(false)
    private let paused = DispatchSemaphore(value: 0)
    private let resumed = DispatchSemaphore(value: 0)
    private let readCount = Locked(0)

    /// How many reads reached the store.
    var reads: Int { readCount.withLock { $0 } }

    init(_ entries: [String: StoredValue]) {
        self.entries = Locked(entries)
    }

    func storedValue(forKey key: String, _ access: BackendAccess) -> StoredValue? {
        readCount.withLock { $0 += 1 }
        let value = entries.withLock { $0[key] }
        let pauses = isNextReadPaused.withLock { paused in
            defer { paused = false }
            return paused
        }
        if pauses {
            paused.signal()
            resumed.wait()
        }
        return value
    }

    func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) {
        entries.withLock { $0[key] = value }
    }

    func removeStoredValue(forKey key: String, _ access: BackendAccess) {
        _ = entries.withLock { $0.removeValue(forKey: key) }
    }

    /// Makes the next read take its value and then wait for `resume()`.
    func pauseNextRead() {
        isNextReadPaused.withLock { $0 = true }
    }

    /// Waits until the paused read has taken its value.
    func waitUntilReadIsPaused() {
        paused.wait()
    }

    func resume() {
        resumed.signal()
    }

    /// Changes a value without announcing it yet, as a store does between
    /// applying a change it found (a file reread) and announcing it.
    func changeWithoutAnnouncing(_ key: String, to value: StoredValue) {
        entries.withLock { $0[key] = value }
    }
}
