import StowageLocking

/// A thread-safe store that keeps values in memory for the life of the process.
///
/// Use ``default`` for process-wide settings, and a fresh `InMemoryStore()` for
/// tests and previews, so each starts empty and none leaks into another.
///
/// ```swift
/// struct Settings: Sendable {
///     @InMemoryStorage("launchCount") var launchCount = 0
/// }
/// let preview: InMemoryStore = ["launchCount": 41, "user.name": "Ada"]
/// ```
public final class InMemoryStore: UnderlyingStorage, DefaultInstanceProviding, Sendable {
    /// The process-wide store.
    public static let `default` = InMemoryStore()

    private let entries: Locked<[String: StoredValue]>

    /// An empty store, or one holding `entries`.
    public init(_ entries: [String: StoredValue] = [:]) {
        self.entries = Locked(entries)
    }

    public func storedValue(forKey key: String, _ access: BackendAccess) -> StoredValue? {
        entries.withLock { $0[key] }
    }

    public func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) {
        entries.withLock { $0[key] = value }
    }

    public func removeStoredValue(forKey key: String, _ access: BackendAccess) {
        // The removed value is released after unlocking, like every other release here.
        let removed = entries.withLock { $0.removeValue(forKey: key) }
        _ = removed
    }

    func entriesCopy() -> [String: StoredValue] {
        entries.withLock { $0 }
    }

    /// Swaps in new entries and hands back the old ones. The cached values of
    /// the keys that change are dropped under the lock, so the change becomes
    /// visible all at once (see `UnderlyingStorage.discardCachedValues(forKeys:)`).
    func exchangeEntries(_ replacement: [String: StoredValue]) -> [String: StoredValue] {
        entries.withLock { entries in
            let changed = Set(entries.keys).union(replacement.keys).filter { entries[$0] != replacement[$0] }
            defer {
                entries = replacement
                discardCachedValues(forKeys: changed)
            }
            return entries
        }
    }

    /// Writes and compare-and-swap share the store's own lock, so Stowage needs none around them.
    public static let replacesAtomically = true

    /// Atomic under the store's own lock, so `modify` never loses a write.
    public func replaceStoredValue(forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?, _ access: BackendAccess) -> Bool {
        entries.withLock { entries in
            guard entries[key] == expected else { return false }
            entries[key] = newValue
            return true
        }
    }

    /// Atomic under the store's own lock, like the one-key version; the
    /// replaced keys' cached values are dropped under that lock too, so a
    /// reader never sees some of the replacements without the others.
    public func replaceStoredValues(expecting expected: [String: StoredValue?], with replacements: [String: StoredValue?], _ access: BackendAccess) -> Bool {
        entries.withLock { entries in
            guard expected.allSatisfy({ entries[$0.key] == $0.value }) else { return false }
            for (key, value) in replacements { entries[key] = value }
            if replacements.count > 1 { discardCachedValues(forKeys: replacements.keys) }
            return true
        }
    }
}

extension InMemoryStore: ExpressibleByDictionaryLiteral {
    /// A store holding the given entries: `let store: InMemoryStore = ["launchCount": 3]`.
    public convenience init(dictionaryLiteral elements: (String, StoredValue)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

/// The property wrapper for ``InMemoryStore``: `@InMemoryStorage("launchCount") var launchCount = 0`.
public typealias InMemoryStorage<Value: Storable> = Stored<InMemoryStore, Value>
