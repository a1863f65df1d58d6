
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
        try locks[lockIndex(storeID: storeID, key: key)].withLock { operations in
            operations &+= 1
            return try body()
        }
    }

    /// Runs `body` holding the locks of every key in `keys`, taken in table
    /// order so that two callers with overlapping keys can not deadlock.
    func withLocks<Result>(storeID: ObjectIdentifier, keys: some Sequence<String>, _ body: () throws -> Result) rethrows -> Result {
        let indices = Set(keys.map { lockIndex(storeID: storeID, key: $0) }).sorted()
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
}
