/// Every key and value of a store at one moment: a value, so it never
/// changes when the store does.
///
/// Compare two to see what changed, print one (secret values are redacted),
/// write one to another store, or start an `InMemoryStore` from one for tests
/// and previews.
///
/// ```swift
/// let before = try settings.snapshot()
/// // ...
/// let changed = try settings.snapshot().changedKeys(comparedWith: before)
/// ```
public struct StoreSnapshot: Sendable, Equatable {
    /// Every key and its value.
    public private(set) var entries: [String: StoredValue]
    /// The keys whose values descriptions never show.
    public private(set) var secretKeys: Set<String>
    /// For a snapshot of a ``LayeredStore``, the name of the layer each
    /// key's value comes from; empty for other stores.
    public private(set) var origins: [String: String]
    /// The store that turns the snapshot's values into typed ones as it
    /// reads them (the environment parses its text), and for a layered
    /// store's snapshot the layer each key came from.
    var decodingStore: (any UnderlyingStorage)?
    var decodingLayers: [String: any UnderlyingStorage] = [:]
    /// What a key starts with in the decoding layers: a namespace's prefix.
    var decodingLayerKeyPrefix = ""

    public init(_ entries: [String: StoredValue] = [:], secretKeys: Set<String> = [], origins: [String: String] = [:]) {
        self.entries = entries
        self.secretKeys = secretKeys
        self.origins = origins
    }

    /// The keys, sorted: the order descriptions list them in.
    var sortedKeys: [String] { entries.keys.sorted() }

    /// The value of `key`; setting changes this copy only.
    public subscript(key: String) -> StoredValue? {
        get { entries[key] }
        set {
            entries[key] = newValue
            origins[key] = nil
            decodingLayers[key] = nil
        }
    }

    /// The value of `key` read as `Value`, or `nil` when absent; read as the
    /// store it came from reads it (`"5.0"` from the environment is a `Double`).
    /// - Throws: ``StorageError`` when the value is not a `Value`.
    public func value<Value: Storable>(forKey key: String, as type: Value.Type = Value.self) throws -> Value? {
        guard let stored = entries[key], stored != .null else { return nil }
        do {
            if let layer = decodingLayers[key] { return try layer.decodeValue(stored, as: Value.self, forKey: decodingLayerKeyPrefix + key) }
            guard let decodingStore else { return try Value(storedValue: stored) }
            return try decodingStore.decodeValue(stored, as: Value.self, forKey: key)
        } catch {
            throw StorageError.wrapping(error, key: key, code: .typeMismatch, reason: "the snapshot's value could not be read as \(Value.self).")
        }
    }

    /// The keys added, removed or changed between `other` and this snapshot, sorted.
    public func changedKeys(comparedWith other: StoreSnapshot) -> [String] {
        Set(entries.keys).union(other.entries.keys).filter { entries[$0] != other.entries[$0] }.sorted()
    }

    /// Equal when they hold the same keys with equal values, wherever they came from.
    public static func == (lhs: StoreSnapshot, rhs: StoreSnapshot) -> Bool {
        lhs.entries == rhs.entries
    }
}

extension StoreSnapshot: ExpressibleByDictionaryLiteral {
    /// `let snapshot: StoreSnapshot = ["launchCount": 3]`
    public init(dictionaryLiteral elements: (String, StoredValue)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

/// `String(reflecting:)` and a debugger's `po` fall back to the description, so secrets stay hidden there too.
extension StoreSnapshot: CustomStringConvertible {
    /// One `key = value` line per key, sorted, with secret values shown as
    /// `<redacted>` and, for a layered store, the layer it comes from.
    public var description: String {
        let lines = sortedKeys.map { key in "\(key) = \(shownValue(forKey: key))" + (origins[key].map { " (from \($0))" } ?? "") }
        return "StoreSnapshot(\(entries.count) \(entries.count == 1 ? "key" : "keys"))" + lines.map { "\n  " + $0 }.joined()
    }
}

extension StoreSnapshot: CustomReflectable {
    /// What `dump` shows: the description, so secrets stay hidden there too.
    public var customMirror: Mirror {
        Mirror(self, children: sortedKeys.map { key in (label: key, value: shownValue(forKey: key)) as Mirror.Child })
    }
}

extension StoreSnapshot {
    /// The value's description, or `<redacted>` for a secret key.
    private func shownValue(forKey key: String) -> String {
        guard !secretKeys.contains(key), let value = entries[key] else { return "<redacted>" }
        return value.description
    }
}
