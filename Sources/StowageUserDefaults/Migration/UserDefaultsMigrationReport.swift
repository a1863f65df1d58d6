public import Stowage

/// What a migration from `UserDefaults` did, key by key.
public struct UserDefaultsMigrationReport: Sendable, CustomStringConvertible {
    /// The target keys written, from keys `UserDefaults` held.
    public var migratedKeys: [String] = []
    /// Target keys that already held a value, which was kept.
    public var keysAlreadyInTarget: [String] = []
    /// Source keys `UserDefaults` held nothing for.
    public var absentKeys: [String] = []
    /// Source keys whose values could not be read as the type asked for; each error names the key and the type.
    public var failures: [StorageError] = []
    /// Whether the migration had run before, so nothing was read or written.
    public var wasAlreadyDone = false

    public var description: String {
        if wasAlreadyDone { return "The migration had already run; nothing was changed." }
        var lines = [
            "Migrated \(migratedKeys.count) keys, kept \(keysAlreadyInTarget.count) already in the store, \(absentKeys.count) absent, \(failures.count) failed."
        ]
        lines += failures.map { "- \($0.message)" }
        return lines.joined(separator: "\n")
    }
}
