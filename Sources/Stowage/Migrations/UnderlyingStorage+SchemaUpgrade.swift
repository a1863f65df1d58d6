extension UnderlyingStorage {
    /// Rewrites the value of `key` in `Value`'s current schema version, if
    /// it is stored in an older one, atomically with other writers.
    /// - Returns: whether the value was rewritten; `false` when absent or current.
    /// - Throws: ``StorageError`` when the value can not be upgraded; it is left as it is.
    @discardableResult
    public func upgradeSchema<Value: VersionedStorable>(forKey key: String, as type: Value.Type = Value.self) throws -> Bool {
        if let view = self as? any StoreView {
            guard let target = view.dataStore(forKey: key) else {
                throw StorageError(code: .readOnly, key: key, reason: "could not be upgraded: no layer of the store takes writes.")
            }
            return try target.store.upgradeSchema(forKey: target.key, as: Value.self)
        }
        while true {
            guard let stored = try storedValue(forKey: key, .granted), stored != .null else { return false }
            guard VersionedEnvelope.open(stored).version != Value.schemaVersion else { return false }
            let upgraded = try decode(stored, as: Value.self, forKey: key).storedValue()
            if try replaceStoredValue(forKey: key, expecting: stored, with: upgraded, .granted) {
                announceChange(forKey: key)
                return true
            }
        }
    }
}
