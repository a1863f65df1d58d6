/// What ``UnderlyingStorage/migrateValue(from:as:to:as:_:)`` did.
public enum KeyMigrationOutcome: Sendable, Hashable {
    /// The old value was converted, written to the new key, and the old key removed.
    case migrated
    /// The old key holds nothing: the migration ran before, or nothing was ever stored.
    case nothingToMigrate
    /// Both keys held values: the new key's was kept and the old key removed.
    case keptNewValue
}
