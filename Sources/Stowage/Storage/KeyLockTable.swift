
/// A fixed set of locks shared by all keys of all stores, picked by hash.
///
/// It serialises a store's plain writes with its default compare-and-swap, so
/// that a `modify` racing a `set` can not lose the `set`. A fixed table costs
/// no allocation per key; two keys sharing a lock only ever wait for a store
/// call, never for user code, so sharing can not deadlock.
@usableFromInline
final class KeyLockTable: Sendable {
    @usableFromInline static let shared = KeyLockTable()

    @usableFromInline static let lockCount = 64
    /// Each lock guards a count of the operations it serialised: a real value
    /// rather than `Void`, whose zero-sized storage ThreadSanitizer misreads.
    @usableFromInline let locks: [Locked<Int>] = (0..<KeyLockTable.lockCount).map { _ in Locked(0) }

    private init() {}

    @inlinable
    func withLock<Result>(storeID: ObjectIdentifier, key: String, _ body: () throws -> Result) rethrows -> Result {
        var hasher = Hasher()
        hasher.combine(storeID)
        hasher.combine(key)
        let index = Int(UInt(bitPattern: hasher.finalize()) % UInt(Self.lockCount))
        return try locks[index].withLock { operations in
            operations &+= 1
            return try body()
        }
    }
}
