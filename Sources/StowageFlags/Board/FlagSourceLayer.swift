import StowageLocking

/// One source of flag values (the overrides, or the remote values) as a
/// layer of the pole's `LayeredStore`, which reads only values of the
/// right type from it.
///
/// A value that is not of its flag's type (an override file edited by hand
/// with nonsense, a remote store holding text where a number belongs) is
/// reported once, naming the key, the type and the value, and the layer
/// gives the last valid value it read for that key instead: the flag keeps
/// its previous value, and never applies the bad one. With no earlier valid
/// value, the layer holds nothing for the key, and lower layers show through.
///
/// Like a namespace with no prefix, it passes every write and every change
/// on: writes go to the source and are announced there, and the source's
/// changes and cache discards reach this layer's references.
final class FlagSourceLayer: UnderlyingStorage, Sendable {
    let source: any UnderlyingStorage
    /// "override" or "remote", for messages.
    let role: String
    let flags: [String: any FlagValueChecker]

    private struct KeyMemory {
        /// The last value of the flag's type read from the source.
        var lastValid: StoredValue?
        /// The last invalid value reported, so that each is reported once.
        var lastReported: StoredValue?
    }

    private let memory = Locked<[String: KeyMemory]>([:])
    private let subscriptions = Locked<[ObservationToken]>([])

    /// - Parameter willAnnounce: called with each change of the source
    ///   before the layer announces it, so that what depends on the source
    ///   (the flag configurations) is current when observers read.
    init(
        _ source: any UnderlyingStorage, role: String, flags: [String: any FlagValueChecker],
        willAnnounce: (@Sendable (StoreChange) -> Void)? = nil
    ) {
        self.source = source
        self.role = role
        self.flags = flags
        let changes = source.observe { [weak self] change in
            guard let self else { return }
            willAnnounce?(change)
            switch change {
            case .allKeys:
                for key in flags.keys { recheck(key) }
                announceChangeOfAllKeys()
            case .key(let key):
                recheck(key)
                announceChange(forKey: key)
            }
        }
        let discards = source.observeCacheDiscards { [weak self] keys in self?.discardCachedValues(forKeys: keys) }
        subscriptions.withLock { $0 = [changes, discards] }
    }

    /// `raw`, the source's value for `key`, if it is of the flag's type;
    /// else the last valid value, the bad one reported once.
    func validated(_ raw: StoredValue?, forKey key: String) -> StoredValue? {
        guard let flag = flags[key] else { return raw }
        guard let raw, raw != .null else {
            memory.withLock { $0[key] = nil }
            return nil
        }
        // Checked already: a listing asks again for every unchanged value.
        if memory.withLock({ $0[key]?.lastValid == raw }) { return raw }
        do {
            _ = try flag.canonicalValue(raw, in: source, key: key)
        } catch {
            let (fallback, isNew) = memory.withLock { memory -> (StoredValue?, Bool) in
                let isNew = memory[key]?.lastReported != raw
                memory[key, default: KeyMemory()].lastReported = raw
                return (memory[key]?.lastValid, isNew)
            }
            if isNew { report(error, raw: raw, forKey: key, keeping: fallback) }
            return fallback
        }
        memory.withLock { $0[key, default: KeyMemory()].lastValid = raw }
        return raw
    }

    /// Checks the source's value of a flag that just changed, so that the
    /// last valid value follows every change, a removal included, whether
    /// or not anything read the flag in between.
    private func recheck(_ key: String) {
        guard flags[key] != nil else { return }
        _ = validated(try? source.storedValue(forKey: key, .granted), forKey: key)
    }

    private func report(_ error: any Error, raw: StoredValue, forKey key: String, keeping fallback: StoredValue?) {
        let shown = source.isSecret(key: key) ? "a secret value" : FlagValueText.render(raw)
        let outcome = fallback == nil ? "the \(role) is ignored" : "the flag keeps its previous \(role) value"
        let why = flags[key].map { "a valid \($0.type.name)" + FlagValueText.why($0.type, error: error) } ?? "of the flag's type"
        StorageError(
            code: .typeMismatch, key: key,
            reason: "the \(role) value \(shown) is not \(why); \(outcome).",
            underlyingError: error
        ).report(from: source)
    }

    // MARK: UnderlyingStorage

    func storedValue(forKey key: String, _ access: BackendAccess) throws -> StoredValue? {
        validated(try source.storedValue(forKey: key, access), forKey: key)
    }

    func decodeValue<Value: Storable>(_ stored: StoredValue, as type: Value.Type, forKey key: String) throws -> Value {
        try source.decodeValue(stored, as: type, forKey: key)
    }

    func setStoredValue(_ value: StoredValue, forKey key: String, _ access: BackendAccess) throws {
        try source.writeRaw(value, forKey: key)
        source.announceChange(forKey: key)
    }

    func removeStoredValue(forKey key: String, _ access: BackendAccess) throws {
        try source.writeRaw(nil, forKey: key)
        source.announceChange(forKey: key)
    }

    /// Atomic as the source's own compare-and-swap is.
    static var replacesAtomically: Bool { true }

    func replaceStoredValue(forKey key: String, expecting expected: StoredValue?, with newValue: StoredValue?, _ access: BackendAccess) throws -> Bool {
        guard try source.replaceStoredValue(forKey: key, expecting: expected, with: newValue, access) else { return false }
        source.announceChange(forKey: key)
        return true
    }

    func replaceStoredValues(expecting expected: [String: StoredValue?], with replacements: [String: StoredValue?], _ access: BackendAccess) throws -> Bool {
        guard try source.replaceStoredValues(expecting: expected, with: replacements, access) else { return false }
        source.announceChanges(forKeys: replacements.keys)
        return true
    }

    /// The source's entries, each flag's value checked as a read checks it.
    func storedEntries(_ access: BackendAccess) throws -> [String: StoredValue] {
        var entries = try source.storedEntries(access)
        for key in flags.keys where entries[key] != nil {
            entries[key] = validated(entries[key], forKey: key)
        }
        return entries
    }

    func isSecret(key: String) -> Bool { source.isSecret(key: key) }

    var isDefaultWriteLayer: Bool { source.isDefaultWriteLayer }
}
