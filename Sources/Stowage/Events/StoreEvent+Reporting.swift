#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension StoreEvent {
    /// Where stores report their events.
    ///
    /// The default writes one line to standard error. Replace it once at
    /// start-up, as `StorageError.reportingHandler`, to send the events to
    /// your logger or monitoring. The handler is called without any Stowage
    /// lock held, on the thread that met the event.
    public static var reportingHandler: @Sendable (StoreEvent) -> Void {
        get { handlerBox.withLock { $0 } }
        set { handlerBox.withLock { $0 = newValue } }
    }

    /// The handler in force when the process starts.
    public static let standardErrorHandler: @Sendable (StoreEvent) -> Void = { event in
        let line = "Stowage: \(event)\n"
        _ = line.withCString { text in write(2, text, strlen(text)) }
    }

    private static let handlerBox = Locked<@Sendable (StoreEvent) -> Void>(standardErrorHandler)

    /// Hands the event to the current handler; for stores, Stowage's and
    /// others' (the PostgreSQL store reports its outages with it).
    public func report() {
        let handler = Self.reportingHandler
        handler(self)
    }
}
