/// A view of a store whose keys all start with a prefix: in
/// `store.namespace("network")`, key `timeout` is the store's `network.timeout`.
///
/// ```swift
/// let network = settings.namespace("network")
/// try network.set(30.0, forKey: "timeout")    // settings' "network.timeout"
/// try network.removeAll()                     // only keys under "network."
/// ```
///
/// It is a store like any other, so references, wrappers, dynamic lookup,
/// typed keys, observation and snapshots work on it. Changes to the base
/// store's keys under the prefix reach the namespace's references, and
/// writes through the namespace reach the base store's.
public final class StoreNamespace<Base: UnderlyingStorage>: UnderlyingStorage, Sendable {
    package let base: Base
    /// What every key of the namespace starts with in the base store, the separator included.
    package let keyPrefix: String
    /// Keeps the namespace subscribed to the base store's changes and cache discards.
    private let subscription = Locked<[ObservationToken]>([])

    /// The keys of `base` that start with `name` and `separator`; made by `namespace(_:separator:)`.
    init(_ base: Base, name: String, separator: String = ".") {
        self.base = base
        self.keyPrefix = name + separator
        let prefix = keyPrefix
        let token = base.observe { [weak self] change in
            guard let self else { return }
            switch change {
            case .allKeys:
                announceChangeOfAllKeys()
            case .key(let key) where key.hasPrefix(prefix):
                announceChange(forKey: String(key.dropFirst(prefix.count)))
            case .key:
                break
            }
        }
        let discards = base.observeCacheDiscards { [weak self] keys in
            self?.discardCachedValues(forKeys: keys.lazy.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) })
        }
        subscription.withLock { $0 = [token, discards] }
    }

    /// The base store's key for `key` of the namespace.
    package func baseKey(forKey key: String) -> String {
        keyPrefix + key
    }

    /// Removes every key of the namespace from the base store, and only those.
    ///
    /// Keys are removed one by one, each announced. In a ``LayeredStore`` only
    /// the write layer loses them, so other layers' values show through.
    /// - Throws: ``StorageError`` when the base store can not list its keys or fails.
    public func removeAll() throws {
        let keys = try base.storedEntries(.granted).keys.filter { $0.hasPrefix(keyPrefix) }
        for key in keys {
            try base.writeRaw(nil, forKey: key)
            base.announceChange(forKey: key)
        }
    }

    // MARK: UnderlyingStorage

    public func storedValue(forKey key: String, _ access: BackendAccess) throws -> StoredValue? {
        try base.storedValue(forKey: baseKey(forKey: key), access)
    }

    public func decodeValue<Value: Storable>(_ stored: StoredValue, as type: Value.Type, forKey key: String) throws -> Value {
        try base.decodeValue(stored, as: type, forKey: baseKey(forKey: key))
    }

    public func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) throws {
        try base.writeRaw(value, forKey: baseKey(forKey: key))
        base.announceChange(forKey: baseKey(forKey: key))
    }

    public func removeStoredValue(forKey key: String, _ access: BackendAccess) throws {
        try base.writeRaw(nil, forKey: baseKey(forKey: key))
        base.announceChange(forKey: baseKey(forKey: key))
    }

    /// Atomic as the base store's own compare-and-swap is.
    public static var replacesAtomically: Bool { true }

    public func replaceStoredValue(forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?, _ access: BackendAccess) throws -> Bool {
        guard try base.replaceStoredValue(forKey: baseKey(forKey: key), expecting: expected, with: newValue, access) else { return false }
        base.announceChange(forKey: baseKey(forKey: key))
        return true
    }

    public func replaceStoredValue(
        forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?, _ access: BackendAccess
    ) async throws -> Bool {
        guard try await base.replaceStoredValue(forKey: baseKey(forKey: key), expecting: expected, with: newValue, access) else { return false }
        base.announceChange(forKey: baseKey(forKey: key))
        return true
    }

    /// The base store's: its pending writes are the namespace's and others'.
    public func commitPendingWrites() async throws {
        try await base.commitPendingWrites()
    }

    public func replaceStoredValues(
        expecting expected: [String: StoredValue?], with replacements: [String: StoredValue?], _ access: BackendAccess
    ) throws -> Bool {
        let baseReplacements = Dictionary(uniqueKeysWithValues: replacements.map { (baseKey(forKey: $0.key), $0.value) })
        let baseExpected = Dictionary(uniqueKeysWithValues: expected.map { (baseKey(forKey: $0.key), $0.value) })
        guard try base.replaceStoredValues(expecting: baseExpected, with: baseReplacements, access) else { return false }
        base.announceChanges(forKeys: baseReplacements.keys)
        return true
    }

    /// The base store's keys under the prefix, with the prefix removed.
    public func storedEntries(_ access: BackendAccess) throws -> [String: StoredValue] {
        var values: [String: StoredValue] = [:]
        for (key, value) in try base.storedEntries(access) where key.hasPrefix(keyPrefix) {
            values[String(key.dropFirst(keyPrefix.count))] = value
        }
        return values
    }

    public func isSecret(key: String) -> Bool {
        base.isSecret(key: baseKey(forKey: key))
    }

    public var isDefaultWriteLayer: Bool { base.isDefaultWriteLayer }

    /// The prefix and the base store's name: `StoreNamespace("billing." in JSONFileStore(…))`.
    public var storeName: String { "StoreNamespace(\"\(keyPrefix)\" in \(base.storeName))" }
}

extension UnderlyingStorage {
    /// The keys of this store under `name` and `separator`, as a store of
    /// their own: `store.namespace("network")` reads `timeout` as `network.timeout`.
    public func namespace(_ name: String, separator: String = ".") -> StoreNamespace<Self> {
        StoreNamespace(self, name: name, separator: separator)
    }
}
