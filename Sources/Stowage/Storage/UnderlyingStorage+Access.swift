extension UnderlyingStorage {
    /// The one live reference for `key` and `Value` in this store.
    ///
    /// Asking twice while the first is alive returns the same object.
    public func reference<Value: Storable>(forKey key: String, as type: Value.Type = Value.self) -> StorageReference<Self, Value> {
        ReferenceRegistry.shared.reference(StorageReference<Self, Value>.self, store: self, key: key) {
            StorageReference(storage: self, key: key)
        }
    }

    /// Reads `key` as `Value`.
    ///
    /// Uses a live reference's cache when there is one; otherwise reads and
    /// decodes once, without creating a reference.
    /// - Returns: the value, or `nil` when the key is absent.
    /// - Throws: ``StorageError`` when the store fails or the value is not a `Value`.
    public func value<Value: Storable>(forKey key: String, as type: Value.Type = Value.self) throws -> Value? {
        if let reference = ReferenceRegistry.shared.existingReference(StorageReference<Self, Value>.self, store: self, key: key) {
            return try reference.value()
        }
        let stored: StoredValue?
        do { stored = try storedValue(forKey: key) } catch {
            throw StorageError.wrapping(error, key: key, code: .storeFailure, reason: "the value could not be read by the store.")
        }
        guard let stored else { return nil }
        do {
            return try Value(storedValue: stored)
        } catch {
            throw StorageError.wrapping(error, key: key, code: .invalidValue, reason: "the stored value could not be read as \(Value.self).")
        }
    }

    /// Writes `value` for `key`; an optional holding `nil` removes the key.
    /// - Throws: ``StorageError`` when the value can not be encoded or the store fails.
    public func set<Value: Storable>(_ value: Value, forKey key: String) throws {
        try reference(forKey: key, as: Value.self).set(value)
    }

    /// Removes `key`, notifying every reference to it.
    public func removeValue(forKey key: String) throws {
        do { try writeRaw(nil, forKey: key) } catch {
            throw StorageError.wrapping(error, key: key, code: .storeFailure, reason: "the value could not be removed by the store.")
        }
        announceChange(forKey: key)
    }

    /// Every change to this store, as an independent stream per access.
    public var keyChanges: AsyncStream<StoreChange> {
        StoreChangeBroadcaster.shared.stream(for: self)
    }
}
