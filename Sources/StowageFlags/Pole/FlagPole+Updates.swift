#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import StowageJSON
import StowageJSONFile

extension FlagPole {
    /// Applies the remote values a server sent, as JSON: an object of flag
    /// keys and values, flat (`{"search.vector-index": true}`), nested by
    /// the key strategy's separator (`{"search": {"vector-index": true}}`),
    /// or both.
    ///
    /// Atomic: a listing or snapshot taken meanwhile shows all of the payload
    /// or none of it, and a reader that has seen one of its values never
    /// reads an older value of another afterwards (with a remote store that
    /// replaces several keys atomically, as the in-memory and JSON file
    /// stores do). Only flags whose remote value changed are announced. An
    /// entry with a key no flag has, or a value not of its flag's type, is
    /// left out and reported; the valid entries are applied all the same.
    /// The time of the update is recorded beside the values (``remoteUpdatedAt``).
    ///
    /// - Parameters:
    ///   - json: the payload's bytes.
    ///   - mode: whether flags the payload leaves out lose their remote value
    ///     (``FlagUpdateMode/fullState``, the default) or keep it (``FlagUpdateMode/patch``).
    /// - Returns: what changed and what was left out.
    /// - Throws: `StorageError` when the payload is not a JSON object (nothing
    ///   is applied), or the remote store fails.
    @discardableResult
    public func update(with json: some Sequence<UInt8>, mode: FlagUpdateMode = .fullState) throws(StorageError) -> FlagUpdateResult {
        let payload = try JSONParser().parse(Array(json))
        guard case .dictionary(let members) = payload else {
            throw StorageError(code: .typeMismatch, reason: "a flag payload must be a JSON object of flag keys and values; found \(payload.kindDescription).")
        }
        return try update(with: members, mode: mode)
    }

    /// Applies remote values given as stored values, keyed as
    /// ``update(with:mode:)`` reads a JSON payload.
    @discardableResult
    public func update(with values: [String: StoredValue], mode: FlagUpdateMode = .fullState) throws(StorageError) -> FlagUpdateResult {
        var rejected: [StorageError] = []
        var named: [String: StoredValue?] = [:]
        collect(values, under: nil, into: &named, rejected: &rejected)
        for error in rejected { error.report() }

        let timeKey = Self.remoteUpdateTimeKey
        let flagKeys = mode == .fullState ? Set(catalog.indexByKey.keys) : Set(named.keys)
        let changed: [String]
        do {
            changed = try replaceRemoteValues(of: flagKeys, with: named, mode: mode, recordingTimeUnder: timeKey)
        } catch {
            throw StorageError.storeFailure(error, reason: "the remote values could not be written.")
        }
        var cleared: [String] = []
        if options.remoteUpdatesClearOverrides {
            let keys = named.compactMap { $0.value == nil ? nil : $0.key }
            do { cleared = try removeOverrides(ofKeys: keys) } catch {
                throw StorageError.storeFailure(error, reason: "the overrides of the updated flags could not be removed.")
            }
        }
        return FlagUpdateResult(changedKeys: changed, rejected: rejected, clearedOverrides: cleared)
    }

    /// Returns once the overrides and remote values written so far are
    /// durable, where they are kept in JSON files (a remote update already
    /// is when it returns; an override is written in the background).
    /// - Throws: the first store's write error.
    public func flush() throws(StorageError) {
        for store in [overrides, remote] {
            try (store as? JSONFileStore)?.flush()
        }
    }

    /// The time the last payload was applied, as recorded in ``remote``; `nil`
    /// before the first, and for a remote store fed otherwise.
    public var remoteUpdatedAt: Date? {
        try? remote.value(forKey: Self.remoteUpdateTimeKey, as: Date.self)
    }

    /// How long ago the last payload was applied; `nil` when none was.
    public var remoteAge: Duration? {
        remoteUpdatedAt.map { .milliseconds(Int64((Date().timeIntervalSince($0) * 1000).rounded())) }
    }

    /// Sorts a payload's members into flag values (`nil` for `null`: no remote
    /// value), descending into objects whose key is no flag's, and rejects the rest.
    private func collect(_ members: [String: StoredValue], under prefix: String?, into named: inout [String: StoredValue?], rejected: inout [StorageError]) {
        for (name, value) in members.sorted(by: { $0.key < $1.key }) {
            let key = prefix.map { $0 + keyStrategy.separator + name } ?? name
            if let index = catalog.indexByKey[key] {
                if value == .null {
                    named[key] = .some(nil)
                    continue
                }
                do {
                    named[key] = try catalog.declarations[index].canonicalValue(value, in: nil, key: key)
                } catch {
                    let type = catalog.definitions[index].type
                    rejected.append(StorageError(
                        code: .typeMismatch, key: key,
                        reason: "the payload's value \(FlagValueText.render(value)) is not a valid \(type.name)\(FlagValueText.why(type, error: error)). The flag keeps its value.",
                        underlyingError: error
                    ))
                }
            } else if case .dictionary(let children) = value, !children.isEmpty {
                collect(children, under: key, into: &named, rejected: &rejected)
            } else {
                rejected.append(StorageError(
                    code: .unsupported, key: key,
                    reason: "the payload names no flag of \(Container.self) (its value \(FlagValueText.render(value)) is left out)."
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
        guard let value, let index = catalog.indexByKey[key] else { return value }
        return (try? catalog.declarations[index].canonicalValue(value, in: remote, key: key)) ?? value
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
            if try overrides.replaceStoredValues(expecting: expected, with: expected.mapValues { _ in nil }, .granted) {
                overrides.announceChanges(forKeys: expected.keys)
                return expected.keys.sorted()
            }
        }
    }
}
