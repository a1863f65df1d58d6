extension UnderlyingStorage {
    /// Moves the value of `oldKey`, read as `Old`, to `newKey` as `New`, once.
    ///
    /// On a layered store or a namespace it runs on the store that keeps the
    /// data (the write layer), so a default in a lower layer is never taken
    /// for a value of the new key. It reads the old value, converts it,
    /// writes the new key and removes the old one in a single multi-key
    /// compare-and-swap (``replaceStoredValues(expecting:with:_:)``), so no
    /// reference sees one without the other; the JSON file store's swap is
    /// atomic across processes too. Running it
    /// again finds the old key gone and does nothing, so call it at every
    /// launch. When the new key already has a value, that value wins and the
    /// old key is removed.
    ///
    /// ```swift
    /// // Version 1 kept a timeout in milliseconds as an Int.
    /// try store.migrateValue(from: "timeoutMillis", as: Int.self, to: "network.timeout", as: Double.self) { Double($0) / 1000 }
    /// ```
    /// - Throws: ``StorageError`` with code `.migrationFailed` when the old
    ///   value can not be read as `Old` or `convert` throws; the old value is
    ///   kept and nothing is written.
    @discardableResult
    public func migrateValue<Old: Storable, New: Storable>(
        from oldKey: String, as oldType: Old.Type = Old.self,
        to newKey: String, as newType: New.Type = New.self,
        _ convert: (Old) throws -> New
    ) throws -> KeyMigrationOutcome {
        if let view = self as? any StoreView {
            guard let old = view.dataStore(forKey: oldKey), let new = view.dataStore(forKey: newKey), old.store === new.store else {
                throw migrationTargetError(oldKey: oldKey, newKey: newKey)
            }
            return try old.store.migrateValue(from: old.key, as: Old.self, to: new.key, as: New.self, convert)
        }
        return try migrate(from: oldKey, to: newKey) { stored in
            let old = try decode(stored, as: Old.self, forKey: oldKey)
            return try convert(old).storedValue()
        } describing: {
            "reading it as \(Old.self) and converting it to \(New.self)"
        }
    }

    /// Moves the value of `oldKey` to `newKey` as it is stored, once: a
    /// rename. See ``migrateValue(from:as:to:as:_:)``.
    @discardableResult
    public func migrateValue(from oldKey: String, to newKey: String) throws -> KeyMigrationOutcome {
        if let view = self as? any StoreView {
            guard let old = view.dataStore(forKey: oldKey), let new = view.dataStore(forKey: newKey), old.store === new.store else {
                throw migrationTargetError(oldKey: oldKey, newKey: newKey)
            }
            return try old.store.migrateValue(from: old.key, to: new.key)
        }
        return try migrate(from: oldKey, to: newKey, { $0 }, describing: { "moving it" })
    }

    private func migrationTargetError(oldKey: String, newKey: String) -> StorageError {
        StorageError(code: .readOnly, key: oldKey, reason: "could not be migrated to \"\(newKey)\": no layer of the store takes writes.")
    }

    private func migrate(
        from oldKey: String, to newKey: String,
        _ convert: (StoredValue) throws -> StoredValue,
        describing action: () -> String
    ) throws -> KeyMigrationOutcome {
        while true {
            guard let old = try storedValue(forKey: oldKey, .granted), old != .null else { return .nothingToMigrate }
            let existing = try storedValue(forKey: newKey, .granted)
            if let existing, existing != .null {
                if try replaceStoredValues(expecting: [oldKey: old, newKey: existing], with: [oldKey: nil], .granted) {
                    announceChange(forKey: oldKey)
                    return .keptNewValue
                }
                continue
            }
            let converted: StoredValue
            do {
                converted = try convert(old)
            } catch {
                throw StorageError(
                    code: .migrationFailed, key: oldKey,
                    reason: "could not be migrated to \"\(newKey)\" by \(action()); the old value is kept.", underlyingError: error
                )
            }
            let replacement: StoredValue? = converted == .null ? nil : converted
            if try replaceStoredValues(expecting: [oldKey: old, newKey: existing], with: [oldKey: nil, newKey: replacement], .granted) {
                announceChanges(forKeys: [oldKey, newKey])
                return .migrated
            }
            // Another writer changed one of the keys: start again from what it wrote.
        }
    }
}
