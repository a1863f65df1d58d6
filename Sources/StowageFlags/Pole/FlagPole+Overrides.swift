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
        guard let index = catalog.indexByKey[key] else { throw unknownKey(key) }
        let declaration = catalog.declarations[index]
        let canonical: StoredValue
        do { canonical = try declaration.canonicalValue(value, in: nil, key: key) } catch {
            let type = catalog.definitions[index].type
            throw StorageError(
                code: .typeMismatch, key: key,
                reason: "\(type.name) takes \(type.expectation); found \(FlagValueText.render(value)).", underlyingError: error
            )
        }
        do { try declaration.set(canonical) } catch {
            throw StorageError.wrapping(error, key: key, code: .storeFailure, reason: "the override could not be written.")
        }
    }

    /// Removes a flag's override, so it reads the remote value or its default again.
    public func removeOverride<Value: Storable>(_ keyPath: KeyPath<Container, Value>) throws(StorageError) {
        let reference = try reference(of: keyPath)
        do { try reference.reference.remove() } catch {
            throw StorageError.wrapping(error, key: reference.key, code: .storeFailure, reason: "the override could not be removed.")
        }
    }

    /// Removes the override kept under `key`: a flag's, or one left for a
    /// flag no longer declared (see ``orphanedOverrides``).
    public func removeOverride(forKey key: String) throws(StorageError) {
        do {
            if catalog.indexByKey[key] != nil {
                try store.removeValue(forKey: key)
            } else {
                try overrides.removeValue(forKey: key)
            }
        } catch {
            throw StorageError.wrapping(error, key: key, code: .storeFailure, reason: "the override could not be removed.")
        }
    }

    /// Removes every override, of declared flags and left-over ones, at once.
    /// - Returns: the keys whose overrides were removed, sorted.
    @discardableResult
    public func removeAllOverrides() throws(StorageError) -> [String] {
        do {
            while true {
                let current = try overrides.storedEntries(.granted)
                guard !current.isEmpty else { return [] }
                let expected = current.mapValues { Optional($0) }
                let removals = current.mapValues { _ in StoredValue?.none }
                if try overrides.replaceStoredValues(expecting: expected, with: removals, .granted) {
                    overrides.announceChanges(forKeys: current.keys)
                    return current.keys.sorted()
                }
            }
        } catch {
            throw StorageError.storeFailure(error, reason: "the overrides could not be removed.")
        }
    }

    /// Overrides kept for keys no flag of the container has (a flag renamed
    /// or removed since): listed so they can be removed, never applied to another flag.
    public var orphanedOverrides: [String: StoredValue] {
        let entries: [String: StoredValue]
        do { entries = try overrides.storedEntries(.granted) } catch {
            StorageError.storeFailure(error, reason: "the overrides could not be listed.").report()
            return [:]
        }
        return entries.filter { catalog.indexByKey[$0.key] == nil }
    }

    func unknownKey(_ key: String) -> StorageError {
        StorageError(code: .unsupported, key: key, reason: "\(Container.self) has no flag with this key.")
    }
}

extension StorageError {
    /// `error` as a `StorageError`, kept as it is when it is one.
    static func storeFailure(_ error: any Error, reason: String) -> StorageError {
        (error as? StorageError) ?? StorageError(code: .storeFailure, reason: reason, underlyingError: error)
    }
}
