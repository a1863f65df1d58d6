extension UnderlyingStorage {
    /// Every key and value the store lists, with its secret keys marked.
    public func snapshot() throws -> StoreSnapshot {
        let values: [String: StoredValue]
        do { values = try storedEntries(.granted) } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(code: .storeFailure, reason: "the store could not be listed.", underlyingError: error)
        }
        var snapshot = StoreSnapshot(values, secretKeys: Set(values.keys.filter { isSecret(key: $0) }))
        snapshot.decodingStore = self
        return snapshot
    }
}

extension StoreSnapshot {
    /// Writes every key of the snapshot to `store`, leaving its other keys
    /// alone, atomically where the store's multi-key replace is, and tells
    /// the store's references.
    public func write(to store: some UnderlyingStorage) throws {
        let replacements = entries.mapValues { Optional($0) }
        while true {
            var current: [String: StoredValue?] = [:]
            for key in entries.keys { current[key] = try store.storedValue(forKey: key, .granted) }
            if try store.replaceStoredValues(expecting: current, with: replacements, .granted) { break }
        }
        store.announceChanges(forKeys: entries.keys)
    }
}
