import Foundation
public import Stowage

/// One key to bring from `UserDefaults` into a Stowage store, and the type to read it as.
///
/// ```swift
/// .key("launchCount", as: Int.self)
/// .key("theme", as: Theme.self, to: "appearance.theme")
/// ```
public struct MigratedKey: Sendable {
    /// The key in `UserDefaults`.
    public let sourceKey: String
    /// The key in the Stowage store.
    public let targetKey: String
    /// The type asked for, for the report.
    public let typeName: String
    /// The value in Stowage's form for `Value`, read from what `UserDefaults` returned.
    let read: @Sendable (_ object: Any, _ format: UserDefaultsFormat) throws -> StoredValue

    /// A key whose value is a `Storable` type; read only as `UserDefaults` keeps it.
    public static func key<Value: Storable>(_ sourceKey: String, as type: Value.Type, to targetKey: String? = nil) -> MigratedKey {
        MigratedKey(sourceKey: sourceKey, targetKey: targetKey ?? sourceKey, typeName: "\(Value.self)") { object, _ in
            try LegacyValueReading.native(object, as: Value.self, key: sourceKey).storedValue()
        }
    }

    /// A key whose value is also `Decodable`: read as the library wrote it,
    /// JSON included (see ``UserDefaultsFormat``).
    public static func key<Value: Storable & Decodable>(_ sourceKey: String, as type: Value.Type, to targetKey: String? = nil) -> MigratedKey {
        MigratedKey(sourceKey: sourceKey, targetKey: targetKey ?? sourceKey, typeName: "\(Value.self)") { object, format in
            try LegacyValueReading.value(object, as: Value.self, key: sourceKey, format: format).storedValue()
        }
    }
}
