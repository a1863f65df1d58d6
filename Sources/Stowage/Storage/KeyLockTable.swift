#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
public import StowageLocking

/// A fixed set of locks shared by all keys of all stores, picked by hash.
///
/// It serialises a store's plain writes with the default compare-and-swap, so
/// that a `modify` racing a `set` can not lose the `set`, for stores that do
/// not replace atomically on their own. A fixed table costs no allocation per
/// key. The lock is held only around the store's own methods, which must not
/// call back into Stowage (see `UnderlyingStorage`); stores that replace
/// atomically never take it.
///
/// A store method that did call back would wait for a lock its own thread
/// holds: always for the same key, and for another key only when the two hash
/// to the same lock, so the hang would come rarely and at random. The table
/// marks each thread while it runs a store's method under it, and a second
/// entry on that thread fails at once with an error naming the store and key.
@usableFromInline
final class KeyLockTable: Sendable {
    @usableFromInline static let shared = KeyLockTable()

    @usableFromInline static let lockCount = 64
    /// Each lock guards a count of the operations it serialised: a real value
    /// rather than `Void`, whose zero-sized storage ThreadSanitizer misreads.
    @usableFromInline let locks: [Locked<Int>] = (0..<KeyLockTable.lockCount).map { _ in Locked(0) }

    /// Set, for a thread, while it runs a store's method under the table.
    private let runningStoreMethod: pthread_key_t = {
        var key = pthread_key_t()
        // Fails only when the process has used up its thread-specific keys (1,024 on Linux), at startup.
        _ = pthread_key_create(&key, nil)
        return key
    }()

    private init() {}

    /// Runs `body`, a store's method, holding the lock of `key`.
    /// - Throws: `StorageError` when this thread is already running a store's
    ///   method under the table (the store called back into Stowage), or what
    ///   `body` throws.
    @usableFromInline
    func withLock<Result>(of store: any UnderlyingStorage, key: String, _ body: () throws -> Result) throws -> Result {
        try enter(store, key: key)
        defer { leave() }
        return try locks[lockIndex(storeID: ObjectIdentifier(store), key: key)].withLock { operations in
            operations &+= 1
            return try body()
        }
    }

    /// Runs `body` holding the locks of every key in `keys`, taken in table
    /// order so that two callers with overlapping keys can not deadlock.
    func withLocks<Result>(of store: any UnderlyingStorage, keys: some Collection<String>, _ body: () throws -> Result) throws -> Result {
        try enter(store, key: keys.min())
        defer { leave() }
        let indices = Set(keys.map { lockIndex(storeID: ObjectIdentifier(store), key: $0) }).sorted()
        return try withLocks(indices[...], body)
    }

    private func withLocks<Result>(_ indices: ArraySlice<Int>, _ body: () throws -> Result) rethrows -> Result {
        guard let first = indices.first else { return try body() }
        return try locks[first].withLock { operations in
            operations &+= 1
            return try withLocks(indices.dropFirst(), body)
        }
    }

    @inlinable
    func lockIndex(storeID: ObjectIdentifier, key: String) -> Int {
        var hasher = Hasher()
        hasher.combine(storeID)
        hasher.combine(key)
        return Int(UInt(bitPattern: hasher.finalize()) % UInt(Self.lockCount))
    }

    /// Marks this thread as running a store's method, or throws if it already is.
    private func enter(_ store: any UnderlyingStorage, key: @autoclosure () -> String?) throws(StorageError) {
        guard pthread_getspecific(runningStoreMethod) == nil else {
            throw StorageError(
                code: .storeFailure, key: key(),
                reason: "\(type(of: store)) called back into Stowage (a write, modify or reference) from inside one of its own methods; "
                    + "a store's methods must work on its own storage, or call a wrapped store's requirements, as UnderlyingStorage says.")
        }
        // Any non-nil value marks the thread; it is never read as an address.
        _ = pthread_setspecific(runningStoreMethod, UnsafeRawPointer(bitPattern: 1))
    }

    private func leave() {
        _ = pthread_setspecific(runningStoreMethod, nil)
    }
}
