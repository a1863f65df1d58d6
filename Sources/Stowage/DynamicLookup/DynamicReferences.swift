/// `store.references.someKey`: the shared reference for a key, with the value type inferred.
///
/// ```swift
/// let launches: StorageReference<InMemoryStore, Int> = store.references.launchCount
/// ```
@dynamicMemberLookup
public struct DynamicReferences<Storage: UnderlyingStorage>: Sendable {
    public let storage: Storage

    public subscript<Value: Storable>(dynamicMember key: String) -> StorageReference<Storage, Value> {
        storage.reference(forKey: key, as: Value.self)
    }
}
