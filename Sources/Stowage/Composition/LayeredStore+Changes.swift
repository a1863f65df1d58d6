import StowageLocking

extension LayeredStore {
    /// Passes each layer's changes on to this store's references, unless a
    /// higher layer has the key: then what they read did not change.
    /// References tell their observers only when the value they read changed.
    func subscribeToLayers() {
        var tokens: [ObservationToken] = []
        for (index, layer) in layers.enumerated() {
            tokens.append(
                layer.store.observe { [weak self] change in
                    self?.layer(at: index, didChange: change)
                })
            // Discarded whether a higher layer shadows the key or not: the handler may not read the layers.
            tokens.append(
                layer.store.observeCacheDiscards { [weak self] keys in
                    guard let self else { return }
                    discardCachedValues(forKeys: keys.lazy.compactMap { self.key(forLayerKey: $0) })
                })
        }
        subscriptions.withLock { $0 = tokens }
    }

    private func layer(at index: Int, didChange change: StoreChange) {
        switch change {
        case .allKeys:
            announceChangeOfAllKeys()
        case .key(let layerKey):
            guard let key = key(forLayerKey: layerKey) else { return }
            let isShadowed = layers[..<index].contains { $0.store.holdsValue(forKey: layerKey) }
            if !isShadowed { announceChange(forKey: key) }
        }
    }
}

extension UnderlyingStorage {
    /// Whether a read of `key` finds a value; a store that fails to read counts as not holding one.
    func holdsValue(forKey key: String) -> Bool {
        guard let value = try? storedValue(forKey: key, .granted) else { return false }
        return value != .null
    }
}
