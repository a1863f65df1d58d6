/// The protocol a store conforms to: what a store implements, and what app
/// code uses, kept apart.
///
/// A store keeps `StoredValue`s by key. It implements three requirements;
/// Stowage builds everything else on them: cached ``StorageReference``s, the
/// ``Stored`` property wrapper, `store.values.someKey`, typed keys, snapshots
/// and observation.
///
/// ```swift
/// final class DictionaryStore: UnderlyingStorage {
///     private let entries = Locked<[String: StoredValue]>([:])
///     func storedValue(forKey key: String, _: BackendAccess) -> StoredValue? { entries.withLock { $0[key] } }
///     func setStoredValue(_ value: StoredValue, forKey key: String, _: BackendAccess) { entries.withLock { $0[key] = value } }
///     func removeStoredValue(forKey key: String, _: BackendAccess) { entries.withLock { $0[key] = nil } }
/// }
/// ```
///
/// The requirements that read or change data take a ``BackendAccess``, which
/// only Stowage can make: app code can not call them, so it can not write
/// around the caches of references and the observers that Stowage keeps
/// coherent. App code reads, writes, removes, observes and lists through
/// `value(forKey:)`, `set(_:forKey:)`, `removeValue(forKey:)`, `observe(_:)`,
/// `snapshot()`, references and wrappers.
///
/// Writes made through Stowage are announced to references and observers by
/// Stowage itself. A store announces only the changes that happen behind
/// Stowage's back (another process, a reload, a bulk operation) with
/// ``announceChanges(forKeys:)``. A store's requirements must not call back
/// into the app API: unless the store declares ``replacesAtomically``,
/// Stowage calls them under a per-key lock. A store that wraps another calls
/// the inner store's requirements, passing on the access it was given, and
/// announces what changed.
public protocol UnderlyingStorage: AnyObject, Sendable {
    /// The value kept for `key`, or `nil` when the key is absent.
    /// - Throws: when the store can not be read; Stowage reports it as a ``StorageError`` naming the key.
    func storedValue(forKey key: String, _ access: BackendAccess) throws -> StoredValue?

    /// Keeps `value` for `key`, replacing any previous value.
    func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) throws

    /// Removes `key`; removing an absent key is not an error.
    func removeStoredValue(forKey key: String, _ access: BackendAccess) throws

    /// Replaces the value for `key` with `newValue` (`nil` removes it) only if
    /// the current value equals `expected` (`nil` meaning absent), atomically.
    ///
    /// This is the primitive behind `modify`: Stowage runs the caller's
    /// transform outside any lock and retries when another writer got in
    /// first. The default serialises with every write made through Stowage in
    /// this process; override it when the store can do better (one lock of its
    /// own, or a lock shared with other processes).
    /// - Returns: whether the value was replaced.
    func replaceStoredValue(forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?, _ access: BackendAccess) throws -> Bool

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
    /// - Parameters:
    ///   - expected: the value each key must hold (`nil`: absent).
    ///   - replacements: the new value per key; `nil` removes the key.
    ///   - access: Stowage's, or the one a wrapping store was given.
    /// - Returns: whether the values were replaced.
    func replaceStoredValues(expecting expected: [String: StoredValue?], with replacements: [String: StoredValue?], _ access: BackendAccess) throws -> Bool

    /// Every key and its value, at one moment, for snapshots and a
    /// namespace's `removeAll()`.
    ///
    /// The default throws a ``StorageError`` with code `.unsupported`: a store
    /// that can list what it holds implements it.
    func storedEntries(_ access: BackendAccess) throws -> [String: StoredValue]

    /// Every key and value the store lists, at one moment, with its secret
    /// keys marked: the app's way to list a store.
    ///
    /// The default builds it from ``storedEntries(_:)`` and ``isSecret(key:)``;
    /// a store that knows more (a layered store, where each value comes from)
    /// adds it here.
    /// - Throws: ``StorageError`` with code `.unsupported` when the store can not list its keys.
    func snapshot() throws -> StoreSnapshot

    /// Whether the value of `key` must never be shown: descriptions of
    /// snapshots redact it. The default is `false`.
    func isSecret(key: String) -> Bool

    /// Whether a ``LayeredStore`` built with `writingTo: .automatic` may pick
    /// this store as the layer its writes go to (it picks the first that is).
    ///
    /// It is about layering only and refuses nothing: `false` marks a source
    /// of settings rather than where they are kept (the environment, whose
    /// writes last only in this process), and a write made to such a store
    /// directly still goes through. The default is `true`.
    var isDefaultWriteLayer: Bool { get }
    /// A short name that tells an operator which store this is, such as
    /// `JSONFileStore(/etc/app/settings.json)`: reported errors and
    /// ``StoreEvent``s carry it, so a log line says which of a program's
    /// stores it is about. It must never hold a secret (a password in a
    /// connection string, say). The default is the type's name.
    var storeName: String { get }

    /// The asynchronous counterpart of the synchronous
    /// `replaceStoredValue(forKey:expecting:with:_:)`, for a store whose
    /// compare-and-swap waits on a network: `modifyAndCommit` awaits it
    /// instead of blocking a thread. The default calls the synchronous one.
    /// Like it, it must be durable when it returns `true`.
    func replaceStoredValue(forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?, _ access: BackendAccess) async throws -> Bool

    /// Returns once every write this store accepted before the call is
    /// durable: committed to a database, written to disk. Behind
    /// `setAndCommit` and `modifyAndCommit`; a durable removal calls it after `removeValue`.
    ///
    /// The default returns at once, for a store whose writes are durable when
    /// they return or that keeps nothing beyond the process; a store that
    /// writes behind implements it.
    /// - Throws: when a pending write fails or can not be committed in time.
    func commitPendingWrites() async throws

    /// Whether this store's `replaceStoredValue(forKey:expecting:with:_:)` is
    /// atomic with its own writes. When it is, Stowage takes no lock of its own
    /// around the store's methods. The default is `false`: the default
    /// compare-and-swap needs Stowage to serialise every write it makes.
    static var replacesAtomically: Bool { get }
}

extension UnderlyingStorage {
    public static var replacesAtomically: Bool { false }

    public func isSecret(key: String) -> Bool { false }

    public var isDefaultWriteLayer: Bool { true }

    public var storeName: String { String(describing: type(of: self)) }

    public func decodeValue<Value: Storable>(_ stored: StoredValue, as type: Value.Type, forKey key: String) throws -> Value {
        try Value(storedValue: stored)
    }

    public func replaceStoredValue(forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?, _ access: BackendAccess) throws -> Bool {
        try KeyLockTable.shared.withLock(of: self, key: key) {
            guard try storedValue(forKey: key, .granted) == expected else { return false }
            try applyRaw(newValue, forKey: key)
            return true
        }
    }

    /// Sets or removes, as `value` says.
    @inlinable
    func applyRaw(_ value: StoredValue?, forKey key: String) throws {
        if let value {
            try setStoredValue(value, forKey: key, .granted)
        } else {
            try removeStoredValue(forKey: key, .granted)
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
        try KeyLockTable.shared.withLock(of: self, key: key) {
            try applyRaw(value, forKey: key)
        }
    }
}
