extension UnderlyingStorage {
    public func replaceStoredValue(
        forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?, _ access: BackendAccess
    ) async throws -> Bool {
        try replaceSynchronously(forKey: key, expecting: expected, with: newValue, access)
    }

    /// The synchronous requirement, named apart: in an async function the
    /// call would resolve to the async overload, which is this default.
    private func replaceSynchronously(forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?, _ access: BackendAccess) throws -> Bool
    {
        try replaceStoredValue(forKey: key, expecting: expected, with: newValue, access)
    }

    public func commitPendingWrites() async throws {}

    /// Writes `value` for `key` and returns once it is durable (see
    /// ``commitPendingWrites()``); an optional holding `nil` removes the key.
    /// - Throws: ``StorageError`` when the value can not be encoded, or the store fails or can not commit.
    public func setAndCommit<Value: Storable>(_ value: Value, forKey key: String) async throws {
        try await reference(forKey: key, as: Value.self).setAndCommit(value)
    }
}
