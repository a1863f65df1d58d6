public import Logging
public import Stowage

/// The level each report is logged at.
///
/// swift-log asks libraries to log at `info` or below, except for warnings
/// that can not flood a log. Stowage reports only what it could not throw:
/// an unreadable value once until it changes, an outage once until it ends,
/// a read-only store once per reason; a write that fails where nothing could
/// throw (a wrapper's setter) each time, since each loses a change. So the
/// defaults are what an operator expects:
///
/// | Report | Level |
/// | --- | --- |
/// | a store event | its severity: `info`, `notice`, `warning` or `error` |
/// | `fileMovedAside`, `madeReadOnly` | `error` |
/// | `disconnected` | `warning` |
/// | `writableAgain`, `writeRetriedAndSucceeded`, `resynchronized` | `notice` |
/// | an error with code `storeFailure`, `timedOut` or `readOnly` (a read or write that did not happen) | `error` |
/// | any other error (a value of the wrong shape, a shadowed write) | `warning` |
///
/// Change any of them:
///
/// ```swift
/// var levels = StowageLogLevels()
/// levels.errorCodes[.typeMismatch] = .notice
/// levels.eventKinds[StoreEvent.Kind("resynchronized")] = .info
/// ```
public struct StowageLogLevels: Sendable {
    /// The level of an event of each severity.
    public var eventSeverities: [StoreEvent.Severity: Logger.Level]
    /// Levels for kinds of events, over their severity's.
    public var eventKinds: [StoreEvent.Kind: Logger.Level]
    /// Levels for errors by code.
    public var errorCodes: [StorageError.Code: Logger.Level]
    /// The level of an error whose code ``errorCodes`` does not list.
    public var otherErrors: Logger.Level

    public init(
        eventSeverities: [StoreEvent.Severity: Logger.Level] = [.info: .info, .notice: .notice, .warning: .warning, .error: .error],
        eventKinds: [StoreEvent.Kind: Logger.Level] = [:],
        errorCodes: [StorageError.Code: Logger.Level] = [.storeFailure: .error, .timedOut: .error, .readOnly: .error],
        otherErrors: Logger.Level = .warning
    ) {
        self.eventSeverities = eventSeverities
        self.eventKinds = eventKinds
        self.errorCodes = errorCodes
        self.otherErrors = otherErrors
    }

    public func level(for event: StoreEvent) -> Logger.Level {
        eventKinds[event.kind] ?? eventSeverities[event.severity] ?? .warning
    }

    public func level(for error: StorageError) -> Logger.Level {
        errorCodes[error.code] ?? otherErrors
    }
}
