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

    /// Applies a payload given as stored values.
    func update(with values: [String: StoredValue], mode: FlagUpdateMode, clearingOverrides: Bool) throws(StorageError) -> FlagUpdateResult {
        var rejected: [StorageError] = []
        var named: [String: StoredValue?] = [:]
        collect(values, under: nil, into: &named, rejected: &rejected)
        for error in rejected { error.report(from: store) }

        let timeKey = Self.remoteUpdateTimeKey
        // A flag whose entry was rejected keeps its remote value, whatever the mode.
        let rejectedFlags = Set(rejected.compactMap(\.key).filter { indexByKey[$0] != nil })
        let flagKeys = (mode == .fullState ? Set(indexByKey.keys) : Set(named.keys)).subtracting(rejectedFlags)
        let changed: [String]
        do {
            changed = try replaceRemoteValues(of: flagKeys, with: named, mode: mode, recordingTimeUnder: timeKey)
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
    private func replaceRemoteValues(
        of keys: Set<String>, with named: [String: StoredValue?], mode: FlagUpdateMode, recordingTimeUnder timeKey: String
    ) throws -> [String] {
        while true {
            var expected: [String: StoredValue?] = [:]
            var replacements: [String: StoredValue?] = [:]
            let current = try remoteValues(of: keys.union([timeKey]))
            for key in keys {
                let old = current[key] ?? nil
                let new = named[key] ?? nil
                expected[key] = old
                if old != new, canonicalRemoteValue(old, forKey: key) != new { replacements[key] = new }
            }
            let changed = replacements.keys.sorted()
            expected[timeKey] = current[timeKey] ?? nil
            replacements[timeKey] = .date(Date())
            if try remote.replaceStoredValues(expecting: expected, with: replacements, .granted) {
                remote.announceChanges(forKeys: replacements.keys.sorted())
                return changed
            }
        }
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
