extension InMemoryStore {
    /// Every entry, as it is now.
    public func snapshot() -> [String: StoredValue] {
        entriesCopy()
    }

    /// Replaces every entry with `snapshot`, announcing exactly the keys whose value changed.
    public func restore(_ snapshot: [String: StoredValue]) {
        let previous = exchangeEntries(snapshot)
        let changed = Set(previous.keys).union(snapshot.keys).filter { previous[$0] != snapshot[$0] }
        announceChanges(forKeys: changed)
    }

    /// Removes every entry, announcing each removed key.
    public func removeAll() {
        restore([:])
    }
}
