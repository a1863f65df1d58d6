public import Logging
public import Stowage

/// Sends what Stowage reports (`StowageReport.handler`) to a `Logger` of the
/// program's: the errors met where nothing could throw and the events stores
/// go through.
///
/// Stowage never makes a logger of its own. The program's logger carries the
/// program's handler, level and metadata, as swift-log asks of libraries.
///
/// ```swift
/// StowageLogRouter(logger: logger).install()
/// ```
///
/// Each line names the store and, where there is one, the key, in its message
/// and in its metadata (``StowageLogMetadata``). No line holds a secret value:
/// Stowage's messages never quote one, and an error behind a report whose
/// text comes from another library is left out; its type is kept.
public struct StowageLogRouter: Sendable {
    /// Where the lines go, with the program's own metadata and level.
    public var logger: Logger
    /// Which level each report gets.
    public var levels: StowageLogLevels

    public init(logger: Logger, levels: StowageLogLevels = StowageLogLevels()) {
        self.logger = logger
        self.levels = levels
    }

    /// Sends every report of the process, from now on, to ``logger``: it
    /// replaces `StowageReport.handler`, so call it once, at start-up.
    public func install() {
        let router = self
        StowageReport.handler = { router.log($0) }
    }

    /// Logs one report, an error or an event.
    public func log(_ report: StowageReport) {
        switch report {
        case .error(let error): log(error)
        case .event(let event): log(event)
        }
    }

    /// Logs one error report: the store's name and the error's sentence.
    public func log(_ error: StorageError) {
        logger.log(
            level: levels.level(for: error), "\(Self.prefix(store: error.storeName))\(error.message)",
            error: error.withoutUnderlyingError, metadata: StowageLogMetadata.metadata(for: error))
    }

    /// Logs one store event: the store's name, the key, and what happened.
    public func log(_ event: StoreEvent) {
        let key = event.key.map { "Key \"\($0)\": " } ?? ""
        logger.log(
            level: levels.level(for: event), "\(Self.prefix(store: event.storeName))\(key)\(event.message)",
            error: event.error?.withoutUnderlyingError, metadata: StowageLogMetadata.metadata(for: event))
    }

    private static func prefix(store: String?) -> String {
        store.map { "\($0): " } ?? ""
    }
}

extension StorageError {
    /// The error without any error behind it that another library wrote,
    /// whose text Stowage can not vouch for; Stowage's own are kept.
    var withoutUnderlyingError: StorageError {
        guard let underlyingError else { return self }
        var copy = self
        copy.underlyingError = (underlyingError as? StorageError)?.withoutUnderlyingError
        return copy
    }

    /// The type of the first error behind this one that Stowage did not write.
    var foreignUnderlyingErrorType: String? {
        guard let underlyingError else { return nil }
        if let own = underlyingError as? StorageError { return own.foreignUnderlyingErrorType }
        return String(reflecting: type(of: underlyingError))
    }
}
