/// Something a store went through on its own that a program's operator should
/// hear of, although no call failed: its file was moved aside, it became
/// read-only, a write went through after failing, it lost its server and
/// caught up again.
///
/// Stores report events to ``StowageReport/handler``, with the errors met
/// where nothing could throw. The `StowageLogging` package
/// (`Integrations/Logging`) sends both to a `Logger`. Each store names the
/// kinds it reports beside its own code (the JSON file store's
/// `fileMovedAside`, the PostgreSQL store's `disconnected`).
///
/// ```swift
/// StowageReport.handler = { report in
///     if case .event(let event) = report, event.severity >= .error { alertOperator(event.message) }
/// }
/// ```
///
/// Like a `StorageError`, an event never quotes a value, so no secret can
/// leak through it.
public struct StoreEvent: Sendable, CustomStringConvertible {
    /// What happened, as an open set of values so new kinds do not break users.
    public struct Kind: Hashable, Sendable {
        /// The kind as text, `writeRetriedAndSucceeded`: what descriptions and logs show.
        public let name: String

        public init(_ name: String) { self.name = name }

        /// A write failed, was tried again, and succeeded: nothing was lost.
        /// `details["attempts"]` counts the tries.
        public static let writeRetriedAndSucceeded = Kind("writeRetriedAndSucceeded")
    }

    /// How much an operator should care, from routine to needing action, in
    /// that order (the cases compare as declared); the levels of a logger.
    public enum Severity: Hashable, Sendable, Comparable {
        /// Routine, worth a line in a log and no more.
        case info
        /// Worth noticing, needing no action: a write went through on retry,
        /// a store caught up after an outage or became writable again.
        case notice
        /// Degraded but working: a server out of reach, reads from a cache.
        case warning
        /// Needs an operator: a store that refuses writes, a damaged file.
        case error
    }

    public var kind: Kind
    public var severity: Severity
    /// The ``UnderlyingStorage/storeName`` of the store it happened to.
    public var storeName: String
    /// The key it concerns, when it concerns one.
    public var key: String?
    /// What happened, as a full sentence that quotes no value.
    public var message: String
    /// Facts for a log's metadata, such as `path`, `backup`, `attempts` or
    /// `outage_seconds`; never a value, never a secret.
    public var details: [String: String]
    /// The failure behind the event, when there is one: why the store became
    /// read-only, what made the file unreadable.
    public var error: StorageError?

    public init(
        _ kind: Kind, severity: Severity, storeName: String, key: String? = nil, message: String,
        details: [String: String] = [:], error: StorageError? = nil
    ) {
        self.kind = kind
        self.severity = severity
        self.storeName = storeName
        self.key = key
        self.message = message
        self.details = details
        self.error = error
    }

    public var description: String {
        var text = "StoreEvent(\(kind.name), \(severity)) in \(storeName): "
        if let key { text += "Key \"\(key)\": " }
        text += message
        if let error { text += " (\(error.message))" }
        return text
    }
}

extension StoreEvent {
    /// Hands the event to ``StowageReport/handler``.
    package func report() {
        StowageReport.event(self).report()
    }
}
