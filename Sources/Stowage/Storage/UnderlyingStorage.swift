/// The protocol a store conforms to.
///
/// A store keeps `StoredValue`s by key. It implements three methods; Stowage
/// builds everything else on them: cached ``StorageReference``s, the ``Stored``
/// property wrapper, `store.values.someKey`, typed keys and observation.
///
/// ```swift
/// final class DictionaryStore: UnderlyingStorage {
///     private let entries = Locked<[String: StoredValue]>([:])
///     func storedValue(forKey key: String) -> StoredValue? { entries.withLock { $0[key] } }
///     func setStoredValue(_ value: StoredValue, forKey key: String) { entries.withLock { $0[key] = value } }
///     func removeStoredValue(forKey key: String) { entries.withLock { $0[key] = nil } }
/// }
/// ```
///
/// Writes made through Stowage are announced to references and observers by
/// Stowage itself. A store announces only the changes that happen behind
/// Stowage's back (another process, a reload, a bulk operation) with
/// ``announceChanges(forKeys:)``.
///
/// Programs read and write through the public API (`value(forKey:)`,
/// `set(_:forKey:)`, references and wrappers), not through these
/// requirements: the public API keeps caches coherent and notifies observers.
/// A store's own methods, in turn, must not call back into that API: unless
/// the store declares ``replacesAtomically``, Stowage calls them under a
/// per-key lock. A store that wraps another calls the inner store's
/// requirements directly and announces what changed.
public protocol UnderlyingStorage: AnyObject, Sendable {
    /// The value kept for `key`, or `nil` when the key is absent.
    /// - Throws: when the store can not be read; Stowage reports it as a ``StorageError``.
    func storedValue(forKey key: String) throws -> StoredValue?

    /// Keeps `value` for `key`, replacing any previous value.
    func setStoredValue(_ value: StoredValue, forKey key: String) throws

    /// Removes `key`; removing an absent key is not an error.
    func removeStoredValue(forKey key: String) throws

    /// Replaces the value for `key` with `newValue` (`nil` removes it) only if
    /// the current value equals `expected` (`nil` meaning absent), atomically.
    ///
    /// This is the primitive behind `modify`: Stowage runs the caller's
    /// transform outside any lock and retries when another writer got in
    /// first. The default serialises with every write made through Stowage in
    /// this process; override it when the store can do better (one lock of its
    /// own, or a lock shared with other processes).
    /// - Returns: whether the value was replaced.
    func replaceStoredValue(forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?) throws -> Bool

    /// Turns a value this store holds for `key` into `Value`.
    ///
    /// The default is `Value(storedValue:)`. A store that keeps text whose
    /// meaning depends on the type read, as the environment does (`"0x1F"` is
    /// a string to `String` and 31 to `Int`), parses it here. Stowage calls it
    /// when a reference's cache misses, and names the key in any error thrown.
    func decodeValue<Value: Storable>(_ stored: StoredValue, as type: Value.Type, forKey key: String) throws -> Value

    /// Replaces several keys at once, only if every key in `expected` holds
    /// the value given there (`nil` meaning absent), atomically: no other
    /// write through Stowage sees some of the replacements without the others.
    ///
    /// The primitive behind migrations and ``StoreSnapshot/write(to:)``. The
    /// default takes the per-key locks of every key involved, which makes it
    /// atomic with Stowage's writes only for stores that do not declare
    /// ``replacesAtomically``; a store that does, or that shares a lock with
    /// other processes, overrides it.
    /// - Parameter replacements: the new value per key; `nil` removes the key.
    /// - Returns: whether the values were replaced.
    func replaceStoredValues(expecting expected: [String: StoredValue?], with replacements: [String: StoredValue?]) throws -> Bool

    /// Every key and its value, at one moment, for snapshots, listings and a
    /// namespace's `removeAll()`.
    ///
    /// The default throws a ``StorageError`` with code `.unsupported`: a store
    /// that can list what it holds implements it.
    func storedValues() throws -> [String: StoredValue]

    /// Whether the value of `key` must never be shown: descriptions of
    /// snapshots redact it. The default is `false`.
    func isSecret(key: String) -> Bool

    /// Whether this store is the home of the values written to it. A layered
    /// store writes to its first writable layer. `false` does not make writes
    /// fail; it marks a store that is a source of settings rather than where
    /// they are kept (the environment, a snapshot, a file opened read-only).
    /// The default is `true`.
    var isWritable: Bool { get }

    /// Whether this store's ``replaceStoredValue(forKey:expecting:with:)`` is
    /// atomic with its own writes. When it is, Stowage takes no lock of its own
    /// around the store's methods. The default is `false`: the default
    /// compare-and-swap needs Stowage to serialise every write it makes.
    static var replacesAtomically: Bool { get }
}

extension UnderlyingStorage {
    public static var replacesAtomically: Bool { false }

    public func isSecret(key: String) -> Bool { false }

    public var isWritable: Bool { true }

    public func decodeValue<Value: Storable>(_ stored: StoredValue, as type: Value.Type, forKey key: String) throws -> Value {
        try Value(storedValue: stored)
    }

    public func replaceStoredValue(forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?) throws -> Bool {
        try KeyLockTable.shared.withLock(storeID: ObjectIdentifier(self), key: key) {
            guard try storedValue(forKey: key) == expected else { return false }
            try applyRaw(newValue, forKey: key)
            return true
        }
    }

    /// Sets or removes, as `value` says.
    @inlinable
    func applyRaw(_ value: StoredValue?, forKey key: String) throws {
        if let value {
            try setStoredValue(value, forKey: key)
        } else {
            try removeStoredValue(forKey: key)
        }
    }

    /// Every write Stowage makes goes through here. Unless the store replaces
    /// atomically on its own, it writes under the same per-key lock the default
    /// `replaceStoredValue` takes, so `modify` never loses a racing write.
    @inlinable
    package func writeRaw(_ value: StoredValue?, forKey key: String) throws {
        if Self.replacesAtomically {
            try applyRaw(value, forKey: key)
            return
        }
        try KeyLockTable.shared.withLock(storeID: ObjectIdentifier(self), key: key) {
            try applyRaw(value, forKey: key)
        }
    }
}
