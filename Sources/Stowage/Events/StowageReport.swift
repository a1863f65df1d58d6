#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import StowageLocking

/// What Stowage tells a program where no call could throw: an error met by a
/// wrapper's getter or setter, `store.values`, or an observer; or an event a
/// store went through on its own (a file moved aside, a lost server).
///
/// Both go to one handler, installed once at start-up, so a program sends
/// everything Stowage has to say to one logger (the `StowageLogging` package
/// does it) and a test collects it in one place.
///
/// ```swift
/// StowageReport.handler = { report in
///     switch report {
///     case .error(let error): logger.warning("\(error)")
///     case .event(let event): logger.notice("\(event)")
///     }
/// }
/// ```
public enum StowageReport: Sendable, CustomStringConvertible {
    /// A failure that could not be thrown; the value read fell back or the change was not kept.
    case error(StorageError)
    /// Something a store went through on its own.
    case event(StoreEvent)

    /// Where every report goes. The default writes one line to standard
    /// error. It is called without any Stowage lock held, on the thread that
    /// met what it reports.
    public static var handler: @Sendable (StowageReport) -> Void {
        get { handlerBox.withLock { $0.call } }
        set { handlerBox.withLock { $0 = Handler(call: newValue) } }
    }

    /// The handler inside a struct: a closure kept bare in the generic
    /// `Locked` is converted to the generic form and back on each access
    /// through `inout`, which wraps it in one more reabstraction thunk per
    /// read, so every report ran deeper and slower than the last. A struct's
    /// field keeps its own form.
    private struct Handler: Sendable {
        let call: @Sendable (StowageReport) -> Void
    }

    private static let handlerBox = Locked(
        Handler { report in
            let line = "Stowage: \(report)\n"
            _ = line.withCString { text in write(2, text, strlen(text)) }
        })

    /// Hands the report to the current handler. Stores outside this package
    /// call the handler itself: `StowageReport.handler(.event(event))`.
    package func report() {
        let handler = Self.handler
        handler(self)
    }

    public var description: String {
        switch self {
        case .error(let error): error.description
        case .event(let event): event.description
        }
    }
}
