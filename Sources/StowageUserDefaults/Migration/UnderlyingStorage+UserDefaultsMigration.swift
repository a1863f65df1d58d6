public import Foundation
public import Stowage
import StowageLocking

extension UnderlyingStorage {
    /// Brings keys from `UserDefaults`, as Foil, Defaults, EFStorage or plain
    /// code wrote them, into this store, once.
    ///
    /// ```swift
    /// let report = try settingsFile.migrate(from: .standard, writtenBy: .defaults, keys: [
    ///     .key("launchCount", as: Int.self),
    ///     .key("theme", as: Theme.self),
    /// ])
    /// for failure in report.failures { logger.warning("\(failure.message)") }
    /// ```
    ///
    /// - Every key is read as the type asked for; one that can not be is
    ///   reported in ``UserDefaultsMigrationReport/failures``, naming the key
    ///   and the type, and left where it is, as is every other value.
    /// - A key that already holds a value in this store keeps it: the store's
    ///   value is newer than any in `UserDefaults`. Except the very value
    ///   `UserDefaults` holds under the source key, as the library wrote it:
    ///   then this store is those defaults (migrating in place, the key keeping
    ///   its name), and the value is converted where it is.
    /// - The values and a completion record (under `completionKey`, the date
    ///   of the migration) are written in one compare-and-swap, atomic where
    ///   the store's `replaceStoredValues(expecting:with:_:)` is (the JSON
    ///   file store's and the in-memory store's are). Once the record is there,
    ///   running it again reads and writes nothing, so it is safe to call at
    ///   every launch, and a value removed from this store later is not brought back.
    /// - `UserDefaults.object(forKey:)` also returns values registered with
    ///   `register(defaults:)`, as Foil and Defaults do for their defaults:
    ///   migrate before their code runs, or a registered default is migrated as if it had been saved.
    ///
    /// - Parameters:
    ///   - defaults: where the values are: `.standard`, or a suite's `UserDefaults`.
    ///   - format: the library that wrote them.
    ///   - keys: the keys, each with the type to read it as and, if it moves, its new name.
    ///   - completionKey: where this store records that the migration ran;
    ///     the default names the library, so one migration from each can run.
    ///   - removingMigratedKeys: whether to remove the migrated keys from
    ///     `UserDefaults` afterwards (failed and kept keys stay, and so do keys
    ///     converted in place or written since they were read). Leave it
    ///     `false` while code that reads them may still run.
    /// - Returns: what happened to each key.
    /// - Throws: `StorageError` when this store can not be read or written.
    @discardableResult
    public func migrate(
        from defaults: UserDefaults = .standard,
        writtenBy format: UserDefaultsFormat,
        keys: [MigratedKey],
        completionKey: String? = nil,
        removingMigratedKeys: Bool = false
    ) throws -> UserDefaultsMigrationReport {
        let marker = completionKey ?? "stowage.migrations.userDefaults.\(format.library.rawValue)"
        // Another write to one of the keys between reading and writing makes the swap fail: read again.
        for _ in 0..<Self.migrationAttempts {
            guard try storedValue(forKey: marker, .granted) == nil else {
                var report = UserDefaultsMigrationReport()
                report.wasAlreadyDone = true
                return report
            }
            var plan = try migrationPlan(from: defaults, writtenBy: format, keys: keys)
            var expected = plan.expected
            expected[marker] = .some(nil)
            var replacements = plan.replacements.mapValues { StoredValue?.some($0) }
            replacements[marker] = .some(.date(Date()))
            guard try replaceStoredValues(expecting: expected, with: replacements, .granted) else { continue }
            announceChanges(forKeys: replacements.keys)
            if removingMigratedKeys {
                let removed = UserDefaultsAccess.withLock { () -> [String] in
                    // Only a key that still holds what was read: not one converted in place, nor one written since.
                    let removed = plan.migratedSourceKeys.filter { key, read in Self.nativeForm(of: defaults.object(forKey: key), key: key) == read }.keys
                        .sorted()
                    for key in removed { defaults.removeObject(forKey: key) }
                    #if !canImport(Darwin)
                    // As the store does after each write: swift-corelibs-foundation writes its file only now.
                    defaults.synchronize()
                    #endif
                    return removed
                }
                // Stores over these defaults hear of it as of any change behind their back.
                for store in UserDefaultsStoreRegistry.stores(over: defaults) {
                    store.lastSeen.withLock { seen in
                        for key in removed { seen[key] = nil }
                    }
                    store.announceChanges(forKeys: removed)
                }
            }
            plan.report.migratedKeys = plan.replacements.keys.sorted()
            return plan.report
        }
        throw StorageError(
            code: .storeFailure, key: marker,
            reason: "The migration from \(format) lost \(Self.migrationAttempts) races with other writes to the same keys; nothing was migrated.")
    }

    private static var migrationAttempts: Int { 8 }

    /// What to write, read from `UserDefaults`, and the report so far.
    private func migrationPlan(from defaults: UserDefaults, writtenBy format: UserDefaultsFormat, keys: [MigratedKey]) throws -> MigrationPlan {
        var plan = MigrationPlan()
        for key in keys {
            // Fetched under the lock, read after it: reading runs the type's own decoding code.
            let fetched = UserDefaultsAccess.withLock { defaults.object(forKey: key.sourceKey) }
            let legacy = Self.nativeForm(of: fetched, key: key.sourceKey)
            let read = fetched.map { object -> Result<StoredValue, StorageError> in
                do {
                    return .success(try key.read(object, format))
                } catch let error as StorageError {
                    return .failure(error)
                } catch {
                    return .failure(
                        StorageError.wrapping(
                            error, key: key.sourceKey, code: .typeMismatch,
                            reason: "UserDefaults' value could not be read as \(key.typeName)."))
                }
            }
            switch read {
            case nil:
                plan.report.absentKeys.append(key.sourceKey)
            case .failure(let error)?:
                plan.report.failures.append(error)
            case .success(let value)?:
                if plan.replacements[key.targetKey] != nil {
                    plan.report.failures.append(
                        StorageError(
                            code: .keyConflict, key: key.sourceKey,
                            reason: "Another key of the migration also moves to \"\(key.targetKey)\"; only the first was migrated."))
                } else if let existing = try storedValue(forKey: key.targetKey, .granted) {
                    // The very value UserDefaults holds, in the form the library wrote: this store is those
                    // defaults (a migration in place, the key keeping its name), and the value moves into Stowage's form.
                    if let legacy, existing == legacy, existing != value {
                        plan.replacements[key.targetKey] = value
                        plan.expected[key.targetKey] = .some(existing)
                        plan.migratedSourceKeys[key.sourceKey] = legacy
                    } else {
                        plan.report.keysAlreadyInTarget.append(key.targetKey)
                    }
                } else {
                    plan.replacements[key.targetKey] = value
                    plan.expected[key.targetKey] = .some(nil)
                    plan.migratedSourceKeys[key.sourceKey] = legacy
                }
            }
        }
        return plan
    }

    /// `object` as a store over `UserDefaults` reads it; `nil` when absent or unreadable.
    private static func nativeForm(of object: Any?, key: String) -> StoredValue? {
        object.flatMap { try? PropertyListForm.storedValue(from: $0, key: key) }
    }
}

/// One attempt's reading of `UserDefaults`.
private struct MigrationPlan {
    var replacements: [String: StoredValue] = [:]
    /// What the compare-and-swap expects under each key replaced: nothing, or the legacy value converted in place.
    var expected: [String: StoredValue?] = [:]
    /// Each key migrated, with the value read from `UserDefaults` in the form a store over it reads.
    var migratedSourceKeys: [String: StoredValue?] = [:]
    var report = UserDefaultsMigrationReport()
}
