/// `store.values.someKey`: read and write keys as properties, with the type inferred.
///
/// ```swift
/// let count: Int? = store.values.launchCount
/// store.values.launchCount = 5
/// store.values.launchCount = Int?.none   // removes the key
/// ```
///
/// Errors go to `StorageError.reportingHandler`; use
/// ``UnderlyingStorage/value(forKey:as:)`` to handle them yourself.
@dynamicMemberLookup
public struct DynamicValues<Storage: UnderlyingStorage>: Sendable {
    public let storage: Storage

    @inlinable
    public subscript<Value: Storable>(dynamicMember key: String) -> Value? {
        get {
            do { return try storage.value(forKey: key, as: Value.self) } catch {
                StorageError.wrapping(error, key: key, code: .storeFailure, reason: "the value could not be read.").report()
                return nil
            }
        }
        nonmutating set {
            storage.reference(forKey: key, as: Value.self).content = newValue
        }
    }
}

extension UnderlyingStorage {
    /// Keys as properties: `store.values.launchCount`.
    public var values: DynamicValues<Self> { DynamicValues(storage: self) }

    /// References as properties: `store.references.launchCount`.
    public var references: DynamicReferences<Self> { DynamicReferences(storage: self) }
}

extension DefaultInstanceProviding {
    /// Keys of the default instance as properties: `InMemoryStore.values.launchCount`.
    public static var values: DynamicValues<Self> { DynamicValues(storage: .default) }

    /// References into the default instance as properties.
    public static var references: DynamicReferences<Self> { DynamicReferences(storage: .default) }
}
