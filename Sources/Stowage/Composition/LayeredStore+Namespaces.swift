/// Namespaces: a layered store whose keys sit under a prefix in its layers.
/// One type serves both, so a namespace of a layered store is the same
/// layers under a longer prefix, and a namespace can be kept in a property
/// of a type anyone can name.
extension LayeredStore {
    /// The key in the layers for `key` of this store.
    @inline(__always)
    package func layerKey(forKey key: String) -> String {
        keyPrefix.isEmpty ? key : keyPrefix + key
    }

    /// The key of this store for a layer's `key`, or `nil` when it lies outside the prefix.
    func key(forLayerKey key: String) -> String? {
        guard !keyPrefix.isEmpty else { return key }
        return key.hasPrefix(keyPrefix) ? String(key.dropFirst(keyPrefix.count)) : nil
    }

    /// The same layers, written to and observed the same way, under `prefix` more.
    func namespaced(_ prefix: String) -> LayeredStore {
        LayeredStore(layers: layers, writeLayerIndex: writeLayerIndex, shadowedWritePolicy: shadowedWritePolicy, keyPrefix: keyPrefix + prefix)
    }

    /// Removes every key of this store from the layer that takes writes, and
    /// only those: for a namespace, the keys under its prefix.
    ///
    /// Keys are removed one by one, each as a removal of it would be:
    /// announced, and reported (or refused) when a higher layer shadows it.
    /// Other layers keep theirs, so their values show through.
    /// - Throws: ``StorageError`` when the write layer can not list its keys
    ///   or fails, or `.readOnly` when no layer takes writes.
    public func removeAll() throws {
        guard let writeIndex = writeLayerIndex else { throw readOnlyError(key: nil) }
        for key in try layers[writeIndex].store.storedEntries(.granted).keys.compactMap(key(forLayerKey:)).sorted() {
            try removeStoredValue(forKey: key, .granted)
        }
    }
}

extension UnderlyingStorage {
    /// The keys of this store under `name` and `separator`, as a store of
    /// their own: `store.namespace("network")` reads `timeout` as `network.timeout`.
    ///
    /// ```swift
    /// let network = settings.namespace("network")
    /// try network.set(30.0, forKey: "timeout")    // settings' "network.timeout"
    /// try network.removeAll()                     // only keys under "network."
    /// ```
    ///
    /// Changes to this store's keys under the prefix reach the namespace's
    /// references, and writes through the namespace reach this store's. The
    /// namespace writes to this store, whatever its ``isDefaultWriteLayer``
    /// says; a namespace of a ``LayeredStore`` reads and writes its layers as it does.
    public func namespace(_ name: String, separator: String = ".") -> LayeredStore {
        if let layered = self as? LayeredStore { return layered.namespaced(name + separator) }
        return LayeredStore(layers: [LayeredStore.Layer(self)], writeLayerIndex: 0, shadowedWritePolicy: .report, keyPrefix: name + separator)
    }
}
