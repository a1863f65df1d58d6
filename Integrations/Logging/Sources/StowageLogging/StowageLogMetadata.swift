public import Logging
public import Stowage

/// The metadata keys of Stowage's lines, in swift-log's dotted style, so a
/// log search can find every line about one store, key or kind of event.
///
/// | Key | Holds | On |
/// | --- | --- | --- |
/// | `stowage.store` | the store's name, `JSONFileStore(/etc/app/settings.json)` | every event, and every error that names its store (all that Stowage's stores report do) |
/// | `stowage.key` | the key | lines about one key |
/// | `stowage.event` | the event's kind, `fileMovedAside` | events |
/// | `stowage.error.code` | the error's code, `typeMismatch` | errors, and events caused by one |
/// | `stowage.error.underlying_type` | the type of the error behind it that another library wrote, not its text | where there is one |
/// | `stowage.<detail>` | an event's details: `stowage.path`, `stowage.backup`, `stowage.attempts`, `stowage.outage_seconds`, `stowage.changed_keys`, `stowage.key_count` | events |
public enum StowageLogMetadata {
    public static let store = "stowage.store"
    public static let key = "stowage.key"
    public static let event = "stowage.event"
    public static let errorCode = "stowage.error.code"
    public static let underlyingErrorType = "stowage.error.underlying_type"

    /// The key of an event's detail, `stowage.backup` for `backup`.
    public static func detail(_ name: String) -> String { "stowage.\(name)" }

    /// What a line about `error` carries.
    public static func metadata(for error: StorageError) -> Logger.Metadata {
        var metadata: Logger.Metadata = [errorCode: "\(error.code.name)"]
        if let store = error.storeName { metadata[Self.store] = "\(store)" }
        if let key = error.key { metadata[Self.key] = "\(key)" }
        if let type = error.foreignUnderlyingErrorType { metadata[underlyingErrorType] = "\(type)" }
        return metadata
    }

    /// What a line about `event` carries.
    public static func metadata(for event: StoreEvent) -> Logger.Metadata {
        var metadata: Logger.Metadata = [:]
        // The details first, so that one named `store` or `event` can not replace the line's own.
        for (name, value) in event.details { metadata[detail(name)] = "\(value)" }
        metadata[Self.event] = "\(event.kind.name)"
        metadata[store] = "\(event.storeName)"
        if let key = event.key { metadata[Self.key] = "\(key)" }
        if let error = event.error {
            metadata[errorCode] = "\(error.code.name)"
            if let type = error.foreignUnderlyingErrorType { metadata[underlyingErrorType] = "\(type)" }
        }
        return metadata
    }
}
