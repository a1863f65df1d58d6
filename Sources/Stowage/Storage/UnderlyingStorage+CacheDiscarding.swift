extension UnderlyingStorage {
    /// Drops the values references hold for `keys`, so the next read of each
    /// goes to the store; tells no observer.
    ///
    /// For a store that applies a change of several keys at once (a file
    /// reread, a transaction committed): call it while holding the lock under
    /// which the change is applied, then announce the keys after unlocking,
    /// as usual. Announcements go key by key; without this, a reader that saw
    /// one key's new value in the store could still read another key's old
    /// value from a cache not yet told. With it, a change that lands together
    /// becomes visible together. It takes only Stowage's own locks, calls no
    /// user code, and reaches the references of stores built on this one
    /// (layers, namespaces).
    ///
    /// ```swift
    /// let changed = entries.withLock { entries in
    ///     let changed = apply(batch, to: &entries)
    ///     discardCachedValues(forKeys: changed)
    ///     return changed
    /// }
    /// announceChanges(forKeys: changed)
    /// ```
    public func discardCachedValues(forKeys keys: some Sequence<String>) {
        let keys = Array(keys)
        guard !keys.isEmpty else { return }
        let storeID = ObjectIdentifier(self)
        for reference in ReferenceRegistry.shared.references(storeID: storeID, keys: keys) {
            reference.discardCachedValue()
        }
        StoreChangeBroadcaster.shared.forwardDiscard(of: keys, fromStoreID: storeID)
    }

    /// Calls `handler` with the keys this store discards cached values of,
    /// under the lock the store holds while doing it; for stores built on
    /// this one, whose handler must not read any store.
    package func observeCacheDiscards(_ handler: @escaping @Sendable ([String]) -> Void) -> ObservationToken {
        StoreChangeBroadcaster.shared.addDiscardHandler(for: self, handler)
    }
}
