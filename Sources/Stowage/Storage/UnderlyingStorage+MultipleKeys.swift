extension UnderlyingStorage {
    public func replaceStoredValues(
        expecting expected: [String: StoredValue?], with replacements: [String: StoredValue?], _ access: BackendAccess
    ) throws -> Bool {
        let keys = Set(expected.keys).union(replacements.keys)
        return try KeyLockTable.shared.withLocks(of: self, keys: keys) {
            for (key, value) in expected where try storedValue(forKey: key, .granted) != value {
                return false
            }
            for (key, value) in replacements.sorted(by: { $0.key < $1.key }) {
                try applyRaw(value, forKey: key)
            }
            return true
        }
    }

    public func storedEntries(_ access: BackendAccess) throws -> [String: StoredValue] {
        throw StorageError(code: .unsupported, reason: "\(Self.self) can not list its keys; it would implement storedEntries(_:).")
    }
}
