extension FlagPole {
    /// Overrides a flag locally: it reads `value` until the override is
    /// removed, whatever the remote values say. Durable as ``overrides`` is
    /// (a JSON file: across restarts), and seen by other processes that share it.
    /// - Throws: `StorageError` when `keyPath` names no flag or the store fails.
    public func override<Value: Storable>(_ keyPath: KeyPath<Container, Value>, with value: Value) throws(StorageError) {
        let reference = try reference(of: keyPath)
        do { try reference.reference.set(value) } catch {
            throw StorageError.wrapping(error, key: reference.key, code: .storeFailure, reason: "the override could not be written.")
        }
    }

    /// Overrides the flag with `key` with a value in its stored form, for a
    /// tool or a screen that works by key: `true`, `250`, `"dark"`.
    /// - Throws: `StorageError` naming the key when no flag has it, or the
    ///   value is not of the flag's type (the message says what it takes).
    public func override(key: String, with value: StoredValue) throws(StorageError) {
        try board.override(key: key, with: value)
    }

    /// Removes a flag's override, so it reads the remote value or its default again.
    public func removeOverride<Value: Storable>(_ keyPath: KeyPath<Container, Value>) throws(StorageError) {
        let reference = try reference(of: keyPath)
        do { try reference.reference.set(nil) } catch {
            throw StorageError.wrapping(error, key: reference.key, code: .storeFailure, reason: "the override could not be removed.")
        }
    }

    /// Removes the override kept under `key`: a flag's, or one left for a
    /// flag no longer declared (see ``orphanedOverrides``).
    public func removeOverride(forKey key: String) throws(StorageError) {
        try board.removeOverride(forKey: key)
    }

    /// Removes every override, of declared flags and left-over ones, at once.
    /// - Returns: the keys whose overrides were removed, sorted.
    @discardableResult
    public func removeAllOverrides() throws(StorageError) -> [String] {
        try board.removeAllOverrides()
    }

    /// Overrides kept for keys no flag of the container has (a flag renamed
    /// or removed since): listed so they can be removed, never applied to another flag.
    public var orphanedOverrides: [String: StoredValue] {
        board.orphanedOverrides
    }

    /// Overrides whose value is not of their flag's type (an edit by hand,
    /// say): reported and never applied; remove them with ``removeOverride(forKey:)``.
    public var invalidOverrides: [String: StoredValue] {
        board.invalidOverrides
    }
}
