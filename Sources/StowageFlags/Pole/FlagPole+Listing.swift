extension FlagPole {
    /// Every flag with its value and origin, in declaration order.
    ///
    /// Each source is read at one moment (the overrides, then the remote
    /// values), so the list shows all of a remote update or none of it.
    /// Reading it inside Observation tracking tracks every flag's value.
    public var all: [FlagState] {
        let overridden = entries(of: overrideLayer)
        let remoteValues = entries(of: remoteLayer)
        return catalog.definitions.indices.map { index in
            catalog.declarations[index].trackAccess()
            return state(at: index, overrides: overridden, remote: remoteValues)
        }
    }

    /// The flags whose key, name in code or description contains `text`,
    /// ignoring case; every flag when `text` is empty.
    public func all(matching text: String) -> [FlagState] {
        let needle = text.lowercased()
        guard !needle.isEmpty else { return all }
        return all.filter { state in
            [state.key, state.definition.name, state.description].contains { $0.lowercased().contains(needle) }
        }
    }

    /// The flag with `key`, now; `nil` when no flag has it.
    public func state(forKey key: String) -> FlagState? {
        guard let index = catalog.indexByKey[key] else { return nil }
        return currentState(at: index)
    }

    /// The flag `keyPath` names, now.
    /// - Throws: `StorageError` when `keyPath` names no flag.
    public func state<Value: Storable>(of keyPath: KeyPath<Container, Value>) throws(StorageError) -> FlagState {
        currentState(at: try index(of: keyPath))
    }

    /// Every flag's value as a snapshot of ``store``: keys, values in their
    /// stored form, and the origin of each ("override", "remote" or
    /// "default"), taken as ``all`` is.
    public func snapshot() -> StoreSnapshot {
        let states = all
        return StoreSnapshot(
            Dictionary(uniqueKeysWithValues: states.map { ($0.key, $0.value) }),
            origins: Dictionary(uniqueKeysWithValues: states.map { ($0.key, $0.origin.rawValue) })
        )
    }

    func currentState(at index: Int) -> FlagState {
        let key = catalog.definitions[index].key
        return state(at: index, overrides: value(of: key, in: overrideLayer), remote: value(of: key, in: remoteLayer))
    }

    /// The flag's state, given what the overrides and remote values hold (already checked by their layers).
    private func state(at index: Int, overrides: [String: StoredValue], remote: [String: StoredValue]) -> FlagState {
        let definition = catalog.definitions[index]
        let declaration = catalog.declarations[index]
        for (origin, layer, values) in [(FlagOrigin.override, overrideLayer, overrides), (.remote, remoteLayer, remote)] {
            guard let stored = values[definition.key],
                let canonical = try? declaration.canonicalValue(stored, in: layer.source, key: definition.key)
            else { continue }
            return FlagState(definition: definition, value: canonical, origin: origin)
        }
        return FlagState(definition: definition, value: definition.defaultValue, origin: .default)
    }

    /// What a source layer holds for the flags, listed at one moment when the
    /// source can list, else key by key.
    private func entries(of layer: FlagSourceLayer) -> [String: StoredValue] {
        do {
            return try layer.storedEntries(.granted)
        } catch let error as StorageError where error.code == .unsupported {
            var values: [String: StoredValue] = [:]
            for key in catalog.indexByKey.keys {
                values.merge(value(of: key, in: layer)) { _, new in new }
            }
            return values
        } catch {
            StorageError.storeFailure(error, reason: "the \(layer.role) values could not be listed.").report()
            return [:]
        }
    }

    private func value(of key: String, in layer: FlagSourceLayer) -> [String: StoredValue] {
        do {
            return try layer.storedValue(forKey: key, .granted).map { [key: $0] } ?? [:]
        } catch {
            StorageError.wrapping(error, key: key, code: .storeFailure, reason: "the \(layer.role) value could not be read.").report()
            return [:]
        }
    }
}
