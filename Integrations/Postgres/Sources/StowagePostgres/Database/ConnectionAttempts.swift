import Foundation
import Logging
import Stowage
import StowageLocking

/// Why the pool's last attempt to connect failed, as postgres-nio's pool
/// logs it: a request for a connection only waits while the pool tries
/// again, so without this a wrong password would read "no answer within 10 s".
///
/// Only the server's message and SQLSTATE, or the network error, are kept
/// from the logged text; the pool's log carries no query, and never the
/// password.
final class ConnectionAttempts: Sendable {
    private let lastFailure = Locked<String?>(nil)
    /// Told of each failed attempt at once, so the store says it is unreachable before a request times out.
    /// In a struct, not bare: see `Locked` on keeping closures.
    private let failureHandler = Locked(FailureHandler())

    private struct FailureHandler: Sendable {
        var call: (@Sendable (String) -> Void)?
    }

    func onFailure(_ handler: @escaping @Sendable (String) -> Void) {
        failureHandler.withLock { $0.call = handler }
    }

    /// The explanation of the last failed attempt, if one failed since the last success.
    var lastFailureExplanation: String? { lastFailure.withLock { $0 } }

    func record(_ logged: String) {
        let explanation = Self.explanation(fromLogged: logged)
        lastFailure.withLock { $0 = explanation }
        failureHandler.withLock { $0.call }?(explanation)
    }

    func recordSuccess() {
        lastFailure.withLock { $0 = nil }
    }

    /// The message and SQLSTATE of a server's refusal, or the network error, out of `String(reflecting: PSQLError)`.
    static func explanation(fromLogged text: String) -> String {
        func field(_ name: String) -> String? {
            guard let start = text.range(of: "\(name): ") else { return nil }
            let rest = text[start.upperBound...]
            let end = [", routine: ", ", severity: ", ", sqlState: ", "]", ", "].compactMap { rest.range(of: $0)?.lowerBound }.min() ?? rest.endIndex
            return String(rest[..<end])
        }
        if text.contains("serverInfo: ["), let message = field("message") {
            return "the server refused the connection: \(message)" + (field("sqlState").map { " (SQLSTATE \($0))" } ?? "")
        }
        if let underlying = text.range(of: "underlying: ") {
            var detail = String(text[underlying.upperBound...])
            if detail.hasSuffix(")") { detail.removeLast() }
            return "could not connect: \(detail)"
        }
        return "could not connect (\(field("PSQLError(code") ?? "unknown error"))"
    }
}

/// Hands the pool's "Connection creation failed" entries to ``ConnectionAttempts``; drops the rest.
struct ConnectionAttemptLogHandler: LogHandler {
    let attempts: ConnectionAttempts
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        switch event.message.description {
        case "Connection creation failed":
            if let error = event.metadata?["psql_error"] ?? event.metadata?.first(where: { $0.key.contains("error") })?.value {
                attempts.record("\(error)")
            }
        case "Connection established":
            attempts.recordSuccess()
        default:
            break
        }
    }
}
