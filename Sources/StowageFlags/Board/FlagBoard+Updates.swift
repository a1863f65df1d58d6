#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StowageJSON

extension FlagBoard {
    /// Applies a JSON payload; see `FlagPole.update(with:mode:)`.
    func update(with json: some Sequence<UInt8>, mode: FlagUpdateMode, clearingOverrides: Bool) throws(StorageError) -> FlagUpdateResult {
        let payload = try JSONParser().parse(Array(json))
        guard case .dictionary(let members) = payload else {
            throw StorageError(code: .typeMismatch, reason: "a flag payload must be a JSON object of flag keys and values; found \(payload.kindDescription).")
        }
        return try update(with: members, mode: mode, clearingOverrides: clearingOverrides)
    }

    /// Applies a payload given as stored values: flag values, or flag
    /// definitions in flagd's format (see `FlagConfigurationParser.isDefinitions`).
    func update(with values: [String: StoredValue], mode: FlagUpdateMode, clearingOverrides: Bool) throws(StorageError) -> FlagUpdateResult {
        var rejected: [StorageError] = []
        var named: [String: StoredValue?] = [:]
        let configurationsAfter: (StoredValue?) -> StoredValue?
        if FlagConfigurationParser.isDefinitions(values, separator: separator, declaredKeys: indexByKey.keys) {
            let parsed = FlagConfigurationParser(
                checker: { [checkers, indexByKey] in indexByKey[$0].map { checkers[$0] } }, isSecret: { [remote] in remote.isSecret(key: $0) }
            ).parse(values)
            rejected = parsed.rejected
            for (key, compiled) in parsed.flags where indexByKey[key] != nil { named[key] = .some(compiled.configuration.staticValue) }
            for key in parsed.removed where indexByKey[key] != nil { named[key] = .some(nil) }
            configurationsAfter = { current in
                Self.configurations(after: current, applying: parsed, mode: mode, keepingRejected: Set(rejected.compactMap(\.key)))
            }
        } else {
            collect(values, under: nil, into: &named, rejected: &rejected)
            let rejectedKeys = Set(rejected.compactMap(\.key))
            configurationsAfter = { [named] current in
                // Plain values replace configurations: all of them for a full state (but those of flags
                // whose entry was rejected, which keep everything), the named flags' for a patch.
                guard case .dictionary(var members)? = current, case .dictionary(var flags)? = members["flags"] else { return nil }
                switch mode {
                case .fullState: flags = flags.filter { rejectedKeys.contains($0.key) }
                case .patch: for key in named.keys { flags[key] = nil }
                }
                members["flags"] = .dictionary(flags)
                return flags.isEmpty && (members["metadata"] ?? .dictionary([:])) == .dictionary([:]) ? nil : .dictionary(members)
            }
        }
        for error in rejected { error.report(from: store) }

        let timeKey = Self.remoteUpdateTimeKey
        // A flag whose entry was rejected keeps its remote value, whatever the mode.
        let rejectedFlags = Set(rejected.compactMap(\.key).filter { indexByKey[$0] != nil })
        let flagKeys = (mode == .fullState ? Set(indexByKey.keys) : Set(named.keys)).subtracting(rejectedFlags)
        let changed: [String]
        do {
            changed = try replaceRemoteValues(of: flagKeys, with: named, recordingTimeUnder: timeKey, configurations: configurationsAfter)
        } catch {
            throw StorageError.storeFailure(error, reason: "the remote values could not be written.")
        }
        var cleared: [String] = []
        if clearingOverrides {
            let keys = named.compactMap { $0.value == nil ? nil : $0.key }
            do { cleared = try removeOverrides(ofKeys: keys) } catch {
                throw StorageError.storeFailure(error, reason: "the overrides of the updated flags could not be removed.")
            }
        }
        return FlagUpdateResult(changedKeys: changed, rejected: rejected, clearedOverrides: cleared)
    }

    /// The time the last payload was applied, as recorded in ``remote``; `nil`
    /// before the first, and for a remote store fed otherwise.
    var remoteUpdatedAt: Date? {
        try? remote.value(forKey: Self.remoteUpdateTimeKey, as: Date.self)
    }

    /// Sorts a payload's members into flag values (`nil` for `null`: no remote
    /// value), descending into objects whose key is no flag's, and rejects the rest.
    private func collect(_ members: [String: StoredValue], under prefix: String?, into named: inout [String: StoredValue?], rejected: inout [StorageError]) {
        for (name, value) in members.sorted(by: { $0.key < $1.key }) {
            let key = prefix.map { $0 + separator + name } ?? name
            if let index = indexByKey[key] {
                if value == .null {
                    named[key] = .some(nil)
                    continue
                }
                do {
                    named[key] = try checkers[index].canonicalValue(value, in: nil, key: key)
                } catch {
                    let type = definitions[index].type
                    rejected.append(
                        StorageError(
                            code: .typeMismatch, key: key,
                            reason:
                                "the payload's value \(FlagValueText.render(value)) is not a valid \(type.name)\(FlagValueText.why(type, error: error)). The flag keeps its value.",
                            underlyingError: error
                        ))
                }
            } else if case .dictionary(let children) = value, !children.isEmpty {
                collect(children, under: key, into: &named, rejected: &rejected)
            } else {
                rejected.append(
                    StorageError(
                        code: .unsupported, key: key,
                        reason: "the payload names no flag of \(containerName) (its value \(FlagValueText.render(value)) is left out)."
                    ))
            }
        }
    }

    /// Swaps the remote values of `keys` in one multi-key replace, with the
    /// time of the update, starting again if another writer got in between.
    /// - Returns: the flags whose remote value changed, sorted.
    /// The configurations are replaced in the same step, as
    /// `configurations` computes them from the current ones; a flag whose
    /// configuration changed counts as changed.
    private func replaceRemoteValues(
        of keys: Set<String>, with named: [String: StoredValue?], recordingTimeUnder timeKey: String,
        configurations: (StoredValue?) -> StoredValue?
    ) throws -> [String] {
        let configurationsKey = FlagConfigurations.storeKey
        for _ in 0..<Self.maximumReplaceAttempts {
            var expected: [String: StoredValue?] = [:]
            var replacements: [String: StoredValue?] = [:]
            var current = try remoteValues(of: keys.union([timeKey]))
            // Read by key: a store with a nested layout lists an object's leaves, not the object.
            current[configurationsKey] = try remote.storedValue(forKey: configurationsKey, .granted)
            for key in keys {
                let old = current[key] ?? nil
                let new = named[key] ?? nil
                expected[key] = old
                if old != new, canonicalRemoteValue(old, forKey: key) != new { replacements[key] = new }
            }
            var changedKeys = Set(replacements.keys)
            let oldConfigurations = current[configurationsKey] ?? nil
            let newConfigurations = configurations(oldConfigurations)
            expected[configurationsKey] = oldConfigurations
            if newConfigurations != oldConfigurations {
                replacements[configurationsKey] = newConfigurations
                changedKeys.formUnion(Self.keysWithChangedConfigurations(from: oldConfigurations, to: newConfigurations))
            }
            let changed = changedKeys.sorted()
            expected[timeKey] = current[timeKey] ?? nil
            replacements[timeKey] = .date(Date())
            if try remote.replaceStoredValues(expecting: expected, with: replacements, .granted) {
                remote.announceChanges(forKeys: replacements.keys.sorted())
                return changed
            }
        }
        throw StorageError(
            code: .storeFailure,
            reason:
                "the remote store changed under every one of \(Self.maximumReplaceAttempts) attempts to replace its values (or does not give back what it was given); nothing was applied."
        )
    }

    /// How often an update starts again when the remote store changed between its read and its replace.
    static let maximumReplaceAttempts = 100

    /// The stored configurations after a payload of definitions: a full
    /// state replaces them (a rejected flag keeps its current one), a patch
    /// changes the flags it names and the set's metadata when it has some.
    private static func configurations(
        after current: StoredValue?, applying parsed: FlagConfigurationParser.Parsed, mode: FlagUpdateMode, keepingRejected rejected: Set<String>
    ) -> StoredValue? {
        var currentFlags: [String: StoredValue] = [:]
        var metadata: StoredValue = .dictionary(parsed.metadata)
        if case .dictionary(let members)? = current, case .dictionary(let flags)? = members["flags"] { currentFlags = flags }
        var flags: [String: StoredValue]
        switch mode {
        case .fullState:
            flags = currentFlags.filter { rejected.contains($0.key) }
        case .patch:
            flags = currentFlags
            for key in parsed.removed { flags[key] = nil }
            if parsed.metadata.isEmpty, case .dictionary(let members)? = current { metadata = members["metadata"] ?? .dictionary([:]) }
        }
        for (key, compiled) in parsed.flags { flags[key] = compiled.configuration.flagdValue }
        if flags.isEmpty, metadata == .dictionary([:]) { return nil }
        return .dictionary(["flags": .dictionary(flags), "metadata": metadata])
    }

    /// The keys whose configuration differs between two stored sets.
    private static func keysWithChangedConfigurations(from old: StoredValue?, to new: StoredValue?) -> Set<String> {
        func flags(_ value: StoredValue?) -> [String: StoredValue] {
            guard case .dictionary(let members)? = value, case .dictionary(let flags)? = members["flags"] else { return [:] }
            return flags
        }
        let (before, after) = (flags(old), flags(new))
        return Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }
    }

    /// A remote value in the form a payload's value takes, for a store that
    /// keeps another form of it (the JSON file store keeps a date as text).
    private func canonicalRemoteValue(_ value: StoredValue?, forKey key: String) -> StoredValue? {
        guard let value, let index = indexByKey[key] else { return value }
        return (try? checkers[index].canonicalValue(value, in: remote, key: key)) ?? value
    }

    /// The remote store's values of `keys` as it holds them, at one moment when it can list them.
    private func remoteValues(of keys: Set<String>) throws -> [String: StoredValue?] {
        var values: [String: StoredValue?] = [:]
        do {
            let entries = try remote.storedEntries(.granted)
            for key in keys { values[key] = entries[key] }
        } catch let error as StorageError where error.code == .unsupported {
            for key in keys { values[key] = try remote.storedValue(forKey: key, .granted) }
        }
        return values
    }

    /// Removes the overrides of `keys` in one multi-key replace.
    /// - Returns: the keys that had one, sorted.
    func removeOverrides(ofKeys keys: [String]) throws -> [String] {
        while true {
            var expected: [String: StoredValue?] = [:]
            for key in keys {
                if let value = try overrides.storedValue(forKey: key, .granted) { expected[key] = value }
            }
            guard !expected.isEmpty else { return [] }
            if try overrides.replaceStoredValues(expecting: expected, with: expected.mapValues { _ in StoredValue?.none }, .granted) {
                overrides.announceChanges(forKeys: expected.keys)
                return expected.keys.sorted()
            }
        }
    }
}
