import Synchronization

/// A fixed set of locks shared by all keys of all stores, picked by hash.
///
/// It serialises a store's plain writes with its default compare-and-swap, so
/// that a `modify` racing a `set` can not lose the `set`. A fixed table costs
/// no allocation per key; two keys sharing a lock only ever wait for a store
/// call, never for user code, so sharing can not deadlock.
final class KeyLockTable: Sendable {
    static let shared = KeyLockTable()

    private static let lockCount = 64
    /// `Mutex` can not be copied into an array, so each sits in a small box.
    private final class Lock: Sendable {
        let mutex = Mutex(())
    }

    private let locks: [Lock] = (0..<KeyLockTable.lockCount).map { _ in Lock() }

    private init() {}

    func withLock<Result>(store: some AnyObject, key: String, _ body: () throws -> Result) throws -> Result {
        var hasher = Hasher()
        hasher.combine(ObjectIdentifier(store))
        hasher.combine(key)
        let index = Int(UInt(bitPattern: hasher.finalize()) % UInt(Self.lockCount))
        return try locks[index].mutex.withLock { _ in try body() }
    }
}
