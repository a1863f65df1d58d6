extension UnderlyingStorage {
    /// The one live reference for `key` and `Value` in this store.
    ///
    /// Asking twice while the first is alive returns the same object.
    @inlinable
    public func reference<Value: Storable>(forKey key: String, as type: Value.Type = Value.self) -> StorageReference<Self, Value> {
        let live = ReferenceRegistry.shared.reference(
            ofType: ObjectIdentifier(ReferenceCore<Self, Value>.self), storeID: ObjectIdentifier(self), key: key
        ) {
            StorageReference<Self, Value>(storage: self, key: key)
        }
        // The registry matched the core's type, `ReferenceCore<Self, Value>`, which only `StorageReference<Self, Value>` makes.
        return unsafeDowncast(live, to: StorageReference<Self, Value>.self)
    }

    /// Reads `key` as `Value`.
    ///
    /// Uses a live reference's cache when there is one (for word-sized values,
    /// which decode faster than a reference is found, it always reads the
    /// store); otherwise reads and decodes once, without creating a reference.
    /// - Returns: the value, or `nil` when the key is absent.
    /// - Throws: ``StorageError`` when the store fails or the value is not a `Value`.
    @inlinable
    public func value<Value: Storable>(forKey key: String, as type: Value.Type = Value.self) throws -> Value? {
        // A word-sized value decodes faster than a live reference can be found, so only
        // other types look for one, to reuse its cached decoding.
        if ReferenceCore<Self, Value>.usesFastSlot { return try readValue(forKey: key, as: Value.self) }
        return try valueThroughLiveReference(forKey: key, as: Value.self)
    }

    /// `value(forKey:as:)` through a live reference's cache, if there is one.
    /// Apart, and never inlined, so that the word-sized path above stays
    /// small enough to be inlined where it is called.
    @inlinable @inline(never)
    func valueThroughLiveReference<Value: Storable>(forKey key: String, as type: Value.Type) throws -> Value? {
        let referenceType = ObjectIdentifier(ReferenceCore<Self, Value>.self)
        let storeID = ObjectIdentifier(self)
        // The core alone, when it holds the value: the reference is neither loaded nor retained.
        if let found = ReferenceRegistry.shared.existingCore(ofType: referenceType, storeID: storeID, key: key) {
            // The registry matched the core's exact type.
            let core = unsafeDowncast(found, to: ReferenceCore<Self, Value>.self)
            core.trackAccess()
            switch core.cachedRead().0 {
            case .present(let value)?: return value
            case .absent?: return nil
            case .failed(let error)?: throw error
            case nil: break
            }
        }
        if let live = ReferenceRegistry.shared.existingReference(ofType: referenceType, storeID: storeID, key: key) {
            // The registry matched the core's type, `ReferenceCore<Self, Value>`, which only `StorageReference<Self, Value>` makes.
            return try unsafeDowncast(live, to: StorageReference<Self, Value>.self).read()
        }
        return try readValue(forKey: key, as: Value.self)
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
    public var changes: AsyncStream<StoreChange> {
        StoreChangeBroadcaster.shared.stream(for: self)
    }

    /// Calls `handler` with every change to this store, synchronously, on the
    /// thread that made or announced it, possibly on several threads at once.
    ///
    /// For stores built on other stores (a layered store, a namespace), which
    /// must pass a change on before the write that caused it returns. The
    /// handler runs under no Stowage lock. Keep the token as long as you observe.
    public func observe(_ handler: @escaping @Sendable (StoreChange) -> Void) -> ObservationToken {
        StoreChangeBroadcaster.shared.addHandler(for: self, handler)
    }
}
