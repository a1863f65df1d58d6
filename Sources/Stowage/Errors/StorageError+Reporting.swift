#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension StorageError {
    /// Where errors from non-throwing paths go: a property wrapper's getter or
    /// setter, `store.values.key`, an observer that could not decode a value.
    ///
    /// The default writes one line to standard error. Replace it once at start-up
    /// to send the errors to your logger, or set a handler that ignores them.
    /// The handler is called without any Stowage lock held, on the thread that
    /// met the error. What stores go through on their own (a file moved aside,
    /// a lost server) goes to `StoreEvent.reportingHandler`.
    ///
    /// ```swift
    /// StorageError.reportingHandler = { error in logger.warning("\(error)") }
    /// ```
    public static var reportingHandler: @Sendable (StorageError) -> Void {
        get { handlerBox.withLock { $0 } }
        set { handlerBox.withLock { $0 = newValue } }
    }

    /// The handler in force when the process starts.
    public static let standardErrorHandler: @Sendable (StorageError) -> Void = { error in
        let line = "Stowage: \(error)\n"
        _ = line.withCString { text in write(2, text, strlen(text)) }
    }

    private static let handlerBox = Locked<@Sendable (StorageError) -> Void>(standardErrorHandler)

    /// Hands the error to the current handler.
    @usableFromInline
    package func report() {
        let handler = Self.reportingHandler
        handler(self)
    }

    /// Hands the error to the current handler, naming `store` unless it names one already.
    @usableFromInline
    package func report(from store: some UnderlyingStorage) {
        attributed(toStore: store.storeName).report()
    }
}
