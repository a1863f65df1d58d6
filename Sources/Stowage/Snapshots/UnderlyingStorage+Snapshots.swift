extension UnderlyingStorage {
    /// Every key and value of the store now, with its secret keys marked.
    /// - Throws: ``StorageError`` with code `.unsupported` when the store can not list its keys.
    public func snapshot() throws -> StoreSnapshot {
        let values: [String: StoredValue]
        do { values = try storedValues() } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(code: .storeFailure, reason: "the store could not be listed.", underlyingError: error)
        }
        return StoreSnapshot(values, secretKeys: Set(values.keys.filter { isSecret(key: $0) }))
    }
}

extension StoreSnapshot {
    /// Writes every key of the snapshot to `store`, leaving its other keys
    /// alone, atomically where the store's multi-key replace is, and tells
    /// the store's references.
    public func write(to store: some UnderlyingStorage) throws {
        let replacements = values.mapValues { Optional($0) }
        while true {
            var current: [String: StoredValue?] = [:]
            for key in values.keys { current[key] = try store.storedValue(forKey: key) }
            if try store.replaceStoredValues(expecting: current, with: replacements) { break }
        }
        store.announceChanges(forKeys: values.keys)
    }
}
