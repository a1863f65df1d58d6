extension UnderlyingStorage {
    /// Decodes a stored value read for `key` as the store says, naming the key in any error.
    @inlinable
    package func decode<Value: Storable>(_ stored: StoredValue, as type: Value.Type, forKey key: String) throws -> Value {
        do {
            return try decodeValue(stored, as: type, forKey: key)
        } catch {
            throw StorageError.wrapping(error, key: key, code: .invalidValue, reason: "the stored value could not be read as \(Value.self).")
        }
    }

    /// Reads and decodes `key` straight from the store: the one place that
    /// treats a top-level null as absent (writing one removes the key) and
    /// names the key in a store failure.
    @inlinable
    package func readValue<Value: Storable>(forKey key: String, as type: Value.Type) throws -> Value? {
        let stored: StoredValue?
        do { stored = try storedValue(forKey: key, .granted) } catch {
            throw StorageError.wrapping(error, key: key, code: .storeFailure, reason: "the value could not be read by the store.")
        }
        guard let stored, stored != .null else { return nil }
        return try decode(stored, as: type, forKey: key)
    }
}
