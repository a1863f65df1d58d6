
/// A fixed set of locks shared by all keys of all stores, picked by hash.
///
/// It serialises a store's plain writes with the default compare-and-swap, so
/// that a `modify` racing a `set` can not lose the `set`, for stores that do
/// not replace atomically on their own. A fixed table costs no allocation per
/// key. The lock is held only around the store's own methods, which must not
/// call back into Stowage (see `UnderlyingStorage`); stores that replace
/// atomically never take it.
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
