extension InMemoryStore {
    /// A store holding a snapshot's keys and values, for tests and previews.
    public convenience init(snapshot: StoreSnapshot) {
        self.init(snapshot.entries)
    }

    /// Every entry, as it is now; it can not fail, unlike other stores' snapshots.
    public func snapshot() -> StoreSnapshot {
        StoreSnapshot(entriesCopy())
    }

    /// Every entry, at one moment.
    public func storedEntries(_ access: BackendAccess) -> [String: StoredValue] {
        entriesCopy()
    }

    /// Replaces every entry with `snapshot`'s, announcing exactly the keys whose value changed.
    public func restore(_ snapshot: StoreSnapshot) {
        let replacement = snapshot.entries
        let previous = exchangeEntries(replacement)
        let changed = Set(previous.keys).union(replacement.keys).filter { previous[$0] != replacement[$0] }
        announceChanges(forKeys: changed)
    }

    /// Removes every entry, announcing each removed key.
    public func removeAll() {
        restore([:])
    }
}
