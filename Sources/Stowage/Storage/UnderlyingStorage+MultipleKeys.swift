extension UnderlyingStorage {
    public func replaceStoredValues(expecting expected: [String: StoredValue?], with replacements: [String: StoredValue?]) throws -> Bool {
        let keys = Set(expected.keys).union(replacements.keys)
        return try KeyLockTable.shared.withLocks(storeID: ObjectIdentifier(self), keys: keys) {
            for (key, value) in expected where try storedValue(forKey: key) != value {
                return false
            }
            for (key, value) in replacements.sorted(by: { $0.key < $1.key }) {
                try applyRaw(value, forKey: key)
            }
            return true
        }
    }

    public func storedValues() throws -> [String: StoredValue] {
        throw StorageError(code: .unsupported, reason: "\(Self.self) can not list its keys; it would implement storedValues().")
    }

    /// The keys this store holds, sorted.
    /// - Throws: ``StorageError`` with code `.unsupported` when the store can not list them.
    public func storedKeys() throws -> [String] {
        try storedValues().keys.sorted()
    }
}
