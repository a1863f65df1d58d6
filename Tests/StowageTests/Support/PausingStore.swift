import Dispatch
import Stowage
import StowageLocking

/// A store whose next read can be held after it has taken its value, so a
/// test can order a slow read against a change and against other reads.
final class PausingStore: UnderlyingStorage {
    private let entries: Locked<[String: StoredValue]>
    private let isNextReadPaused = Locked(false)
    private let paused = DispatchSemaphore(value: 0)
    private let resumed = DispatchSemaphore(value: 0)
    private let readCount = Locked(0)
    /// Keys whose next read pauses on a pair of semaphores of its own.
    private let keyPauses = Locked<[String: (paused: DispatchSemaphore, resumed: DispatchSemaphore)]>([:])

    /// How many reads reached the store.
    var reads: Int { readCount.withLock { $0 } }

    init(_ entries: [String: StoredValue]) {
        self.entries = Locked(entries)
    }

    func storedValue(forKey key: String, _ access: BackendAccess) -> StoredValue? {
        readCount.withLock { $0 += 1 }
        let value = entries.withLock { $0[key] }
        if let pause = keyPauses.withLock({ $0.removeValue(forKey: key) }) {
            pause.paused.signal()
            pause.resumed.wait()
            return value
        }
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

    /// Makes the next read of `key` take its value and wait; returns what
    /// waits until it is paused and what resumes it.
    func pauseNextRead(ofKey key: String) -> (waitUntilPaused: @Sendable () -> Void, resume: @Sendable () -> Void) {
        let pause = (paused: DispatchSemaphore(value: 0), resumed: DispatchSemaphore(value: 0))
        keyPauses.withLock { $0[key] = pause }
        return ({ pause.paused.wait() }, { pause.resumed.signal() })
    }

    /// Changes a value without announcing it yet, as a store does between
    /// applying a change it found (a file reread) and announcing it.
    func changeWithoutAnnouncing(_ key: String, to value: StoredValue) {
        entries.withLock { $0[key] = value }
    }
}
