
/// A fixed set of locks shared by all keys of all stores, picked by hash.
///
/// It serialises a store's plain writes with its default compare-and-swap, so
/// that a `modify` racing a `set` can not lose the `set`. A fixed table costs
/// no allocation per key; two keys sharing a lock only ever wait for a store
/// call, never for user code, so sharing can not deadlock.
final class KeyLockTable: Sendable {
    static let shared = KeyLockTable()

    private static let lockCount = 64
    /// Each lock guards a count of the operations it serialised: a real value
    /// rather than `Void`, whose zero-sized storage ThreadSanitizer misreads.
    private let locks: [Locked<Int>] = (0..<KeyLockTable.lockCount).map { _ in Locked(0) }

    private init() {}

    func withLock<Result>(store: some AnyObject, key: String, _ body: () throws -> Result) throws -> Result {
        var hasher = Hasher()
        hasher.combine(ObjectIdentifier(store))
        hasher.combine(key)
        let index = Int(UInt(bitPattern: hasher.finalize()) % UInt(Self.lockCount))
        return try locks[index].withLock { operations in
            operations &+= 1
            return try body()
        }
    }
}
