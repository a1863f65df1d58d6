extension FlagBoard {
    /// Every flag with its value and origin, each source read at one moment.
    var all: [FlagState] {
        let overridden = entries(of: overrideLayer)
        let remoteValues = entries(of: remoteLayer)
        return definitions.indices.map { state(at: $0, overrides: overridden, remote: remoteValues) }
    }

    /// The flags whose key, name in code or description contains `text`, ignoring case.
    func all(matching text: String) -> [FlagState] {
        let needle = text.lowercased()
        guard !needle.isEmpty else { return all }
        return all.filter { state in
            [state.key, state.definition.name, state.description].contains { $0.lowercased().contains(needle) }
        }
    }

    func state(forKey key: String) -> FlagState? {
        indexByKey[key].map(currentState(at:))
    }

    /// Every flag's value and origin as a snapshot of the layered store.
    func snapshot() -> StoreSnapshot {
        let states = all
        return StoreSnapshot(
            Dictionary(uniqueKeysWithValues: states.map { ($0.key, $0.value) }),
            origins: Dictionary(uniqueKeysWithValues: states.map { ($0.key, $0.origin.rawValue) })
        )
    }

    func currentState(at index: Int) -> FlagState {
        let key = definitions[index].key
        return state(at: index, overrides: value(of: key, in: overrideLayer), remote: value(of: key, in: remoteLayer))
    }

    /// The flag's state, given what the overrides and remote values hold (already checked by their layers).
    private func state(at index: Int, overrides: [String: StoredValue], remote: [String: StoredValue]) -> FlagState {
        let definition = definitions[index]
        let configuration = configurations.configuration(forKey: definition.key)
        if let canonical = canonicalValue(at: index, in: overrides, of: overrideLayer) {
            return FlagState(definition: definition, value: canonical, origin: .override, configuration: configuration?.configuration)
        }
        if configuration != nil || configurations.lookUp(definition.key).broken != nil {
            // As a read gives it: the configuration decides, whatever the remote value says.
            let resolution = resolveBelowOverrides(key: definition.key, context: EvaluationContext.current)
            let isRuleInForce = configuration?.rule != nil && configuration?.configuration.isEnabled == true
            let origin: FlagOrigin = isRuleInForce ? .targeting : (resolution.value == nil ? .default : .remote)
            return FlagState(
                definition: definition, value: resolution.value ?? definition.defaultValue, origin: origin, configuration: configuration?.configuration)
        }
        if let canonical = canonicalValue(at: index, in: remote, of: remoteLayer) {
            return FlagState(definition: definition, value: canonical, origin: .remote, configuration: configuration?.configuration)
        }
        return FlagState(definition: definition, value: definition.defaultValue, origin: .default, configuration: configuration?.configuration)
    }

    /// The flag's value among `values`, as its checker gives it, or `nil`.
    private func canonicalValue(at index: Int, in values: [String: StoredValue], of layer: FlagSourceLayer) -> StoredValue? {
        let key = definitions[index].key
        guard let stored = values[key] else { return nil }
        return try? checkers[index].canonicalValue(stored, in: layer.source, key: key)
    }

    /// What a source layer holds for the flags, listed at one moment when the
    /// source can list, else key by key.
    private func entries(of layer: FlagSourceLayer) -> [String: StoredValue] {
        do {
            return try layer.storedEntries(.granted)
        } catch let error as StorageError where error.code == .unsupported {
            var values: [String: StoredValue] = [:]
            for key in indexByKey.keys {
                values.merge(value(of: key, in: layer)) { _, new in new }
            }
            return values
        } catch {
            StorageError.storeFailure(error, reason: "the \(layer.role) values could not be listed.").report(from: store)
            return [:]
        }
    }

    private func value(of key: String, in layer: FlagSourceLayer) -> [String: StoredValue] {
        do {
            return try layer.storedValue(forKey: key, .granted).map { [key: $0] } ?? [:]
        } catch {
            StorageError.wrapping(error, key: key, code: .storeFailure, reason: "the \(layer.role) value could not be read.").report(from: store)
            return [:]
        }
    }
}
