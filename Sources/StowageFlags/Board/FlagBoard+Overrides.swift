extension FlagBoard {
    /// Overrides the flag with `key` with `value` in its stored form, checked against the flag's type.
    func override(key: String, with value: StoredValue) throws(StorageError) {
        guard let index = indexByKey[key] else { throw unknownKey(key) }
        let canonical: StoredValue
        do { canonical = try checkers[index].canonicalValue(value, in: nil, key: key) } catch {
            let type = definitions[index].type
            throw StorageError(
                code: .typeMismatch, key: key,
                reason: "\(type.name) takes \(type.expectation); found \(FlagValueText.render(value)).", underlyingError: error
            )
        }
        // A compare-and-swap on the overrides themselves: written before it
        // returns in a file store, and applied only once written, so a failure
        // leaves nothing pending. Not through the layered store, whose `modify`
        // compares with the value a read gives: an override equal to the remote
        // value or the default would change nothing there, and write nothing.
        do {
            while true {
                let current = try overrides.storedValue(forKey: key, .granted)
                guard current != canonical else { return }
                if try overrides.replaceStoredValue(forKey: key, expecting: current, with: canonical, .granted) {
                    overrides.announceChange(forKey: key)
                    return
                }
            }
        } catch {
            throw StorageError.wrapping(error, key: key, code: .storeFailure, reason: "the override could not be written.")
        }
    }

    /// Removes the override kept under `key`, a flag's or a left-over one, whatever its value.
    func removeOverride(forKey key: String) throws(StorageError) {
        do { _ = try removeOverrides(ofKeys: [key]) } catch {
            throw StorageError.wrapping(error, key: key, code: .storeFailure, reason: "the override could not be removed.")
        }
    }

    /// Removes every override at once.
    /// - Returns: the keys whose overrides were removed, sorted.
    func removeAllOverrides() throws(StorageError) -> [String] {
        do {
            while true {
                let current = try overrides.storedEntries(.granted)
                guard !current.isEmpty else { return [] }
                let expected = current.mapValues { Optional($0) }
                let removals = current.mapValues { _ in StoredValue?.none }
                if try overrides.replaceStoredValues(expecting: expected, with: removals, .granted) {
                    overrides.announceChanges(forKeys: current.keys.sorted())
                    return current.keys.sorted()
                }
            }
        } catch {
            throw StorageError.storeFailure(error, reason: "the overrides could not be removed.")
        }
    }

    /// Overrides of flags whose value is not of the flag's type: kept in the
    /// store (an edit by hand, say), reported, never applied.
    var invalidOverrides: [String: StoredValue] {
        let entries: [String: StoredValue]
        do { entries = try overrides.storedEntries(.granted) } catch {
            StorageError.storeFailure(error, reason: "the overrides could not be listed.").report(from: overrides)
            return [:]
        }
        return entries.filter { key, value in
            guard let index = indexByKey[key] else { return false }
            return (try? checkers[index].canonicalValue(value, in: overrides, key: key)) == nil
        }
    }

    /// Overrides kept for keys no flag has.
    var orphanedOverrides: [String: StoredValue] {
        let entries: [String: StoredValue]
        do { entries = try overrides.storedEntries(.granted) } catch {
            StorageError.storeFailure(error, reason: "the overrides could not be listed.").report(from: overrides)
            return [:]
        }
        return entries.filter { indexByKey[$0.key] == nil }
    }
}

extension StorageError {
    /// `error` as a `StorageError`, kept as it is when it is one.
    static func storeFailure(_ error: any Error, reason: String) -> StorageError {
        (error as? StorageError) ?? StorageError(code: .storeFailure, reason: reason, underlyingError: error)
    }
}
