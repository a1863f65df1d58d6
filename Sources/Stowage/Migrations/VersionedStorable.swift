/// A `Codable` value stored with its schema version, and upgraded from
/// older versions step by step when read.
///
/// ```swift
/// struct Profile: VersionedStorable {
///     var fullName: String
///     static let schemaVersion = 2
///     static let schemaMigrations = [
///         // Version 1 stored {"first": ..., "last": ...}.
///         SchemaMigration(from: 1) { (old: [String: String]) in
///             ["fullName": "\(old["first"] ?? "") \(old["last"] ?? "")"]
///         },
///     ]
/// }
/// ```
///
/// The value is kept as `{"schemaVersion": 2, "value": {...}}`. A value
/// without that envelope (written before the type was versioned) is version
/// 1. A read upgrades in memory; ``UnderlyingStorage/upgradeSchema(forKey:as:)``
/// writes the upgrade back. A version newer than ``schemaVersion`` (from a
/// later release of the program) is a `.migrationFailed` error, as a missing
/// step is, and the stored value is left as it is.
public protocol VersionedStorable: Codable, Storable {
    /// The version this program reads and writes; 1 is the first.
    static var schemaVersion: Int { get }
    /// One step from each older version to the next.
    static var schemaMigrations: [SchemaMigration] { get }
}

/// One step of a ``VersionedStorable`` type's schema, from the version given
/// to ``init(from:_:)`` to the next.
public struct SchemaMigration: Sendable {
    let fromVersion: Int
    let upgrade: @Sendable (StoredValue) throws -> StoredValue

    /// A step that reads the old form as `Old` and gives the next version's form as `New`.
    /// Use `StoredValue` for either to work on the stored tree itself.
    public init<Old: Storable, New: Storable>(from version: Int, _ upgrade: @escaping @Sendable (Old) throws -> New) {
        fromVersion = version
        self.upgrade = { try upgrade(Old(storedValue: $0)).storedValue() }
    }
}

extension Storable where Self: VersionedStorable {
    public init(storedValue: StoredValue) throws {
        let (storedVersion, payload) = VersionedEnvelope.open(storedValue)
        self = try StoredValueDecoder().decode(Self.self, from: try Self.upgraded(payload, from: storedVersion))
    }

    public func storedValue() throws -> StoredValue {
        VersionedEnvelope.seal(try StoredValueEncoder().encode(self), version: Self.schemaVersion)
    }

    /// `payload`, stored at `version`, brought to ``VersionedStorable/schemaVersion``.
    static func upgraded(_ payload: StoredValue, from version: Int) throws -> StoredValue {
        guard version <= schemaVersion else {
            throw StorageError(
                code: .migrationFailed,
                reason: "the value has schema version \(version), newer than the \(schemaVersion) this program knows; it is left as it is."
            )
        }
        var payload = payload
        for current in version..<schemaVersion {
            guard let step = schemaMigrations.first(where: { $0.fromVersion == current }) else {
                throw StorageError(code: .migrationFailed, reason: "\(Self.self) has no schema migration from version \(current).")
            }
            do {
                payload = try step.upgrade(payload)
            } catch {
                throw StorageError(
                    code: .migrationFailed, reason: "the schema migration of \(Self.self) from version \(current) failed.", underlyingError: error
                )
            }
        }
        return payload
    }
}

/// The stored form of a versioned value: `{"schemaVersion": N, "value": ...}`.
enum VersionedEnvelope {
    static let versionKey = "schemaVersion"
    static let valueKey = "value"

    static func seal(_ payload: StoredValue, version: Int) -> StoredValue {
        .dictionary([versionKey: .signedInteger(Int64(version)), valueKey: payload])
    }

    /// The version and payload; a value without the envelope is version 1.
    static func open(_ stored: StoredValue) -> (version: Int, payload: StoredValue) {
        guard case .dictionary(let members) = stored, members.count == 2, let payload = members[valueKey],
            let version = members[versionKey].flatMap({ try? Int(storedValue: $0) })
        else { return (1, stored) }
        return (version, payload)
    }
}
