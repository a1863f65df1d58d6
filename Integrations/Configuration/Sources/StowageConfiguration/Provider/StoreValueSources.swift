import Stowage

/// A key read live from a store, through `value(forKey:as:)`: the store's
/// decoding, a live reference's cache where one exists, errors naming the key.
struct LiveStoreValue<Store: UnderlyingStorage>: TypedValueSource {
    let store: Store
    let key: String

    func value<Value: Storable>(as type: Value.Type) throws -> Value? {
        try store.value(forKey: key, as: Value.self)
    }
}

/// A key of a store's snapshot, decoded as the store (or its layer) decodes it.
struct SnapshotValue: TypedValueSource {
    let snapshot: StoreSnapshot
    let key: String

    func value<Value: Storable>(as type: Value.Type) throws -> Value? {
        try snapshot.value(forKey: key, as: Value.self)
    }
}
