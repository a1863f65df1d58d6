import Stowage
import StowageLocking
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A store that counts calls, so tests can prove what did (not) reach the store.
/// It uses the protocol's default compare-and-swap on purpose.
final class CountingStore: UnderlyingStorage {
    private let entries = Locked<[String: StoredValue]>([:])
    private let readCount = Atomic<Int>(0)
    private let writeCount = Atomic<Int>(0)

    var reads: Int { readCount.load(ordering: .relaxed) }
    var writes: Int { writeCount.load(ordering: .relaxed) }

    func storedValue(forKey key: String, _ access: BackendAccess) -> StoredValue? {
        readCount.add(1, ordering: .relaxed)
        return entries.withLock { $0[key] }
    }

    func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) {
        writeCount.add(1, ordering: .relaxed)
        entries.withLock { $0[key] = value }
    }

    func removeStoredValue(forKey key: String, _ access: BackendAccess) {
        writeCount.add(1, ordering: .relaxed)
        _ = entries.withLock { $0.removeValue(forKey: key) }
    }

    /// Changes a value the way another process would: behind Stowage's back, then announced.
    func changeExternally(_ key: String, to value: StoredValue?, announce: Bool = true) {
        entries.withLock { $0[key] = value }
        if announce { announceChange(forKey: key) }
    }
}

/// A store whose every operation fails, for error paths.
final class FailingStore: UnderlyingStorage {
    struct Failure: Error {}
    func storedValue(forKey key: String, _ access: BackendAccess) throws -> StoredValue? { throw Failure() }
    func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) throws { throw Failure() }
    func removeStoredValue(forKey key: String, _ access: BackendAccess) throws { throw Failure() }
}

/// A store whose writes take a while, using the default compare-and-swap, so
/// that a race between a write and a compare-and-swap is likely to show.
final class SlowWritingStore: UnderlyingStorage {
    private let entries = Locked<[String: StoredValue]>([:])

    func storedValue(forKey key: String, _ access: BackendAccess) -> StoredValue? {
        entries.withLock { $0[key] }
    }

    func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) {
        usleep(20)
        entries.withLock { $0[key] = value }
    }

    func removeStoredValue(forKey key: String, _ access: BackendAccess) {
        usleep(20)
        _ = entries.withLock { $0.removeValue(forKey: key) }
    }
}
