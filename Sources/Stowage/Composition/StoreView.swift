/// A store that shows another store's data: migrations run on the store
/// that holds the data, so that a value seen through a view (a default in a
/// lower layer, say) is never taken for data of the store being migrated.
protocol StoreView {
    /// The store that keeps writes to `key`, and the key there; `nil` when
    /// nothing takes writes.
    func dataStore(forKey key: String) -> (store: any UnderlyingStorage, key: String)?
}

extension LayeredStore: StoreView {
    func dataStore(forKey key: String) -> (store: any UnderlyingStorage, key: String)? {
        writeLayerIndex.map { (layers[$0].store, layerKey(forKey: key)) }
    }
}
