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
    public private(set) var values: [String: StoredValue]
    /// The keys whose values descriptions never show.
    public private(set) var secretKeys: Set<String>

    public init(_ values: [String: StoredValue] = [:], secretKeys: Set<String> = []) {
        self.values = values
        self.secretKeys = secretKeys
    }

    /// The keys, sorted.
    public var keys: [String] { values.keys.sorted() }

    public var count: Int { values.count }

    public var isEmpty: Bool { values.isEmpty }

    /// The value of `key`; setting changes this copy only.
    public subscript(key: String) -> StoredValue? {
        get { values[key] }
        set { values[key] = newValue }
    }

    /// The value of `key` read as `Value`, or `nil` when absent.
    /// - Throws: ``StorageError`` when the value is not a `Value`.
    public func value<Value: Storable>(forKey key: String, as type: Value.Type = Value.self) throws -> Value? {
        guard let stored = values[key], stored != .null else { return nil }
        do {
            return try Value(storedValue: stored)
        } catch {
            throw StorageError.wrapping(error, key: key, code: .typeMismatch, reason: "the snapshot's value could not be read as \(Value.self).")
        }
    }

    /// The keys added, removed or changed between `other` and this snapshot, sorted.
    public func changedKeys(comparedWith other: StoreSnapshot) -> [String] {
        Set(values.keys).union(other.values.keys).filter { values[$0] != other.values[$0] }.sorted()
    }

    /// Equal when they hold the same keys with equal values.
    public static func == (lhs: StoreSnapshot, rhs: StoreSnapshot) -> Bool {
        lhs.values == rhs.values
    }
}

extension StoreSnapshot: ExpressibleByDictionaryLiteral {
    /// `let snapshot: StoreSnapshot = ["launchCount": 3]`
    public init(dictionaryLiteral elements: (String, StoredValue)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension StoreSnapshot: CustomStringConvertible, CustomDebugStringConvertible {
    /// One `key = value` line per key, sorted, with secret values shown as `<redacted>`.
    public var description: String {
        let lines = keys.map { key in "\(key) = \(secretKeys.contains(key) ? "<redacted>" : values[key]!.description)" }
        return "StoreSnapshot(\(count) \(count == 1 ? "key" : "keys"))" + lines.map { "\n  " + $0 }.joined()
    }

    public var debugDescription: String { description }
}

extension StoreSnapshot: CustomReflectable {
    /// What `dump` shows: the description, so secrets stay hidden there too.
    public var customMirror: Mirror {
        Mirror(self, children: keys.map { key in (label: key, value: secretKeys.contains(key) ? "<redacted>" : values[key]!.description) as Mirror.Child })
    }
}
