/// `store.values.someKey`: read and write keys as properties.
///
/// Swift infers each key's type from the code around it, so name it where
/// nothing else does:
///
/// ```swift
/// let launches: Int? = store.values.launchCount   // nil while the key is absent
/// store.values.launchCount = 5
/// store.values.launchCount += 1                   // a number counts from zero
/// store.values.launchCount = nil                  // removes the key
/// ```
///
/// `let n = store.values.launchCount` does not compile: the type is unknown.
/// Numbers also read as non-optional, zero while the key is absent, so that
/// `+=` works; `+=` reads and then writes, so for a count that several
/// threads or processes change, use `reference(forKey:as:).modify`, which is
/// atomic. Errors go to `StowageReport.handler`; use
/// ``UnderlyingStorage/value(forKey:as:)`` to handle them yourself.
@dynamicMemberLookup
public struct DynamicValues<Storage: UnderlyingStorage>: Sendable {
    @usableFromInline package let storage: Storage

    /// The value of `key` as `Value`, or `nil` when absent or unreadable; setting `nil` removes it.
    @inlinable
    public subscript<Value: Storable>(dynamicMember key: String) -> Value? {
        get { readReporting(key, as: Value.self) }
        nonmutating set {
            storage.reference(forKey: key, as: Value.self).value = newValue
        }
    }

    /// The number under `key`, zero while the key is absent or unreadable, so that `+=` works.
    @inlinable
    public subscript<Value: Storable & Numeric>(dynamicMember key: String) -> Value {
        get { readReporting(key, as: Value.self) ?? .zero }
        nonmutating set {
            storage.reference(forKey: key, as: Value.self).value = newValue
        }
    }

    /// `store.values.someKey = nil` removes the key, whatever its type.
    public subscript(dynamicMember key: String) -> Never? {
        @available(*, unavailable, message: "name the type of the value: let count: Int? = store.values.count")
        get { nil }
        nonmutating set {
            do { try storage.removeValue(forKey: key) } catch {
                StorageError.wrapping(error, key: key, code: .storeFailure, reason: "the value could not be removed.").report(from: storage)
            }
        }
    }
}

extension DynamicValues {
    /// Reads `key`, reporting an error rather than throwing it.
    @inlinable
    func readReporting<Value: Storable>(_ key: String, as type: Value.Type) -> Value? {
        do { return try storage.value(forKey: key, as: Value.self) } catch {
            StorageError.wrapping(error, key: key, code: .storeFailure, reason: "the value could not be read.").report(from: storage)
            return nil
        }
    }
}

extension UnderlyingStorage {
    /// Keys as properties: `store.values.launchCount`, and for a store's
    /// default instance `InMemoryStore.default.values.launchCount`.
    public var values: DynamicValues<Self> { DynamicValues(storage: self) }
}
